/*
 * libFuzzer target: the resources file loader -- libxml2 parsing with the
 * DOCTYPE refused, validation against the compiled-in XSD, and the
 * conversion into a struct cluster.  It must never read a file or the
 * network: an XXE attempt that got through would show up as a slow or
 * leaking input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <libxml/parser.h>

#include "resources.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static FILE *devnull;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	devnull = fopen("/dev/null", "w");
	setenv("HOME", "/nonexistent-wfrun-fuzz", 1);
	xmlInitParser();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diags d;
	struct cluster c;
	diags_init(&d, "/nonexistent-wfrun-fuzz/res.xml");
	resources_load_mem(&c, "/nonexistent-wfrun-fuzz/res.xml",
			   (const char *)data, size, &d);
	diags_print(&d, devnull);
	diags_release(&d);
	resources_release(&c);
	return 0;
}
