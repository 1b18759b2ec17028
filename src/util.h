/*
 * util: the small pieces every other module uses — checked allocation, a
 * growable string (strbuf), a growable vector (VEC), a string-keyed hash map
 * (hmap), a string arena, messages and clocks.  It depends on nothing but
 * libc, owns no global state except the log verbosity, and never exits
 * except through die()/BUG() when an invariant or allocation fails.
 */
#ifndef WFRUN_UTIL_H
#define WFRUN_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define WFRUN_VERSION "0.1.0"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#if defined(__GNUC__)
#define PRINTF(f, a) __attribute__((format(printf, f, a)))
#define NORETURN __attribute__((noreturn))
#else
#define PRINTF(f, a)
#define NORETURN
#endif

/* Allocation: these never return NULL; they abort with a message on OOM. */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) PRINTF(1, 2);

/* Grow an array to hold at least n elements; alloc is its capacity. */
#define ALLOC_GROW(p, n, alloc)                                            \
	do {                                                               \
		if ((size_t)(n) > (alloc)) {                               \
			size_t na_ = (alloc) ? (alloc)*2 : 8;              \
			if (na_ < (size_t)(n))                             \
				na_ = (size_t)(n);                         \
			(p) = xrealloc((p), na_ * sizeof(*(p)));           \
			(alloc) = na_;                                     \
		}                                                          \
	} while (0)

/* A vector of T: v[0..n) valid, v is NULL while alloc is 0. */
#define VEC(T)                                                             \
	struct {                                                           \
		T *v;                                                      \
		size_t n, alloc;                                           \
	}
/* A vector of strings (ownership is the user's to state). */
struct strvec {
	char **v;
	size_t n, alloc;
};

#define VEC_PUSH(vec, x)                                                   \
	do {                                                               \
		ALLOC_GROW((vec).v, (vec).n + 1, (vec).alloc);             \
		(vec).v[(vec).n++] = (x);                                  \
	} while (0)
#define VEC_FREE(vec)                                                      \
	do {                                                               \
		free((vec).v);                                             \
		(vec).v = NULL;                                            \
		(vec).n = (vec).alloc = 0;                                 \
	} while (0)

/* Fatal internal invariant violation: a bug in wfrun, not bad input. */
#define BUG(...) bug_at(__FILE__, __LINE__, __VA_ARGS__)
NORETURN void bug_at(const char *file, int line, const char *fmt, ...)
	PRINTF(3, 4);
/* Fatal error of the environment (cannot allocate, cannot write a log). */
NORETURN void die(const char *fmt, ...) PRINTF(1, 2);

/*
 * strbuf: buf is never NULL (it points to a shared empty string until the
 * first addition) and is always NUL-terminated at buf[len].
 */
struct strbuf {
	char *buf;
	size_t len, alloc;
};
extern char strbuf_empty[];
#define STRBUF_INIT { strbuf_empty, 0, 0 }
void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const void *data, size_t n);
void strbuf_adds(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) PRINTF(2, 3);
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/* Give the buffer to the caller (who frees it); sb is re-initialised. */
char *strbuf_detach(struct strbuf *sb);
void strbuf_setlen(struct strbuf *sb, size_t len);
/* Append s as a JSON string, quotes included: ", \\ and control
 * characters escaped, and < (so the result can sit inside an HTML
 * <script>); other bytes (UTF-8) copied as they are. */
void strbuf_add_json(struct strbuf *sb, const char *s);
/* Append n bytes at s for a terminal: what would drive it instead of
 * showing (control characters but tab and newline, DEL, the C1 controls
 * in UTF-8) made visible as \e, \r, \xNN; other bytes copied.  What a
 * task wrote, or a name it made, can then not set the window title or
 * clear the screen. */
void strbuf_add_visible(struct strbuf *sb, const char *s, size_t n);
/* s with strbuf_add_visible applied: a new string (for printing names
 * that come from the user's data). */
char *xvisible(const char *s);

/*
 * arena: a bump allocator for many small strings that live as long as the
 * arena (interned paths and expanded values).  Freed all at once.
 */
struct arena {
	struct arena_block *head;
	size_t used, cap;
	size_t total;
};
void arena_init(struct arena *a);
void arena_release(struct arena *a);
void *arena_alloc(struct arena *a, size_t n);
char *arena_strndup(struct arena *a, const char *s, size_t n);

/*
 * hmap: open addressing, string keys owned by the caller (they must outlive
 * the map), 64-bit values.  No deletion: wfrun's maps only grow.
 */
struct hmap_entry {
	const char *key;
	uint32_t klen;
	uint32_t hash;
	uint64_t val;
};
struct hmap {
	struct hmap_entry *e;
	size_t cap, n;
};
uint32_t hash_bytes(const void *p, size_t n);
void hmap_init(struct hmap *m);
void hmap_release(struct hmap *m);
/* Return the value slot for key, or NULL. */
uint64_t *hmap_get(const struct hmap *m, const char *key, size_t klen);
/* Insert key if missing (with value val); return the value slot and set
 * *found when the key was already there. */
uint64_t *hmap_put(struct hmap *m, const char *key, size_t klen, uint64_t val,
		   int *found);

/* Messages to stderr; log_level: 0 quiet, 1 normal, 2 verbose. */
extern int log_level;
void error_msg(const char *fmt, ...) PRINTF(1, 2);
void warning_msg(const char *fmt, ...) PRINTF(1, 2);
void info_msg(const char *fmt, ...) PRINTF(1, 2);
void verbose_msg(const char *fmt, ...) PRINTF(1, 2);

/*
 * Error buffer filled by library code that returns -1; errprintf() always
 * returns -1 so callers can write `return errprintf(err, ...)`.
 */
struct errbuf {
	char msg[1024];
};
int errprintf(struct errbuf *err, const char *fmt, ...) PRINTF(2, 3);

/*
 * Bounded reads: every file wfrun takes as input is read through these.
 * A regular file or a pipe (a FIFO, `<(gen)`) is read, at most max bytes;
 * anything else (a device, a directory, a socket) is refused before any
 * read, and a FIFO is opened without waiting for a writer.  On failure
 * err says why without the path, for the caller to name the file:
 * "No such file or directory", "a character device, not a regular file
 * or a pipe", "larger than the limit of 64 MiB".
 */
#define READ_MAX_WORKFLOW ((size_t)256 << 20) /* workflow */
#define READ_MAX_INPUT ((size_t)64 << 20)     /* resources, model, ... */
#define READ_MAX_RECORD ((size_t)1 << 30)     /* a trace, its events */
/* The whole file appended to sb: 0 (a regular file), 1 (a pipe), or -1
 * with err. */
int read_bounded(const char *path, size_t max, struct strbuf *sb,
		 struct errbuf *err);
/* A stream that gives at most max bytes (then fails with EFBIG): the
 * stream, or NULL with err (errno kept: ENOENT when there is no file). */
FILE *fopen_bounded(const char *path, size_t max, struct errbuf *err);
/* What failed a read of such a stream: strerror(e), but for EFBIG "larger
 * than the limit of N MiB" (static storage). */
const char *read_strerror(int e, size_t max);

/* Clocks: wall time in seconds since the epoch, monotonic seconds. */
double clock_real(void);
double clock_mono(void);

/* Edit distance, for "did you mean" suggestions. */
size_t edit_distance(const char *a, const char *b);
/* The candidate closest to word if it is close enough, else NULL. */
const char *closest_word(const char *word, const char *const *cands, size_t n);

/* qsort's comparison of doubles, ascending. */
int cmp_double(const void *a, const void *b);
/* Parse a whole decimal integer; -1 on junk or overflow. */
int parse_long(const char *s, long *out);

/*
 * heap: a binary min-heap of elements of any size, in an array the caller
 * owns, ordered by less: push and pop each cost O(log n) comparisons.
 * HEAP_PUSH and HEAP_POP work on a VEC-like struct (v, n, alloc).  The
 * two are inline, so that each caller's size and less are constants the
 * compiler folds in: as fast as the hand-written heaps they replace.
 */
typedef bool (*heap_less_fn)(const void *a, const void *b);

/* v[0..n) is a heap with room for one more: add *x (not in v). */
static inline void
heap_push(void *v, size_t n, size_t size, const void *x, heap_less_fn less)
{
	char *b = v;
	size_t i = n;
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!less(x, b + parent * size))
			break;
		memcpy(b + i * size, b + parent * size, size);
		i = parent;
	}
	memcpy(b + i * size, x, size);
}

/* v[0..n), n > 0, is a heap: copy its least element to *top and leave
 * v[0..n-1) a heap of the others. */
static inline void
heap_pop(void *v, size_t n, size_t size, void *top, heap_less_fn less)
{
	char *b = v;
	const char *last = b + (n - 1) * size;
	size_t m = n - 1, i = 0;
	memcpy(top, b, size);
	/* the hole at the top sinks to where the last element goes */
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= m)
			break;
		if (c + 1 < m && less(b + (c + 1) * size, b + c * size))
			c++;
		if (!less(b + c * size, last))
			break;
		memcpy(b + i * size, b + c * size, size);
		i = c;
	}
	if (m)
		memcpy(b + i * size, last, size);
}

#define HEAP_PUSH(h, x, less)                                              \
	do {                                                               \
		ALLOC_GROW((h).v, (h).n + 1, (h).alloc);                   \
		heap_push((h).v, (h).n, sizeof(*(h).v), &(x), (less));     \
		(h).n++;                                                   \
	} while (0)
#define HEAP_POP(h, top, less)                                             \
	heap_pop((h).v, (h).n--, sizeof(*(h).v), &(top), (less))

/* A min-heap of (when, id, aux) by when: timers and events in time order. */
struct theap_item {
	double when;
	uint32_t id;
	uint32_t aux;
};
struct theap {
	struct theap_item *v;
	size_t n, alloc;
};
void theap_push(struct theap *h, double when, uint32_t id, uint32_t aux);
/* The earliest item, removed; the heap must not be empty. */
struct theap_item theap_pop(struct theap *h);

/* A set of ids below a bound fixed at init: add, remove and list in O(1)
 * each (the running tasks of a kind, listed when needed). */
struct idset {
	uint32_t *v;   /* the members, in no order */
	uint32_t *pos; /* per id: its index in v */
	size_t n;
};
void idset_init(struct idset *s, size_t bound);
void idset_add(struct idset *s, uint32_t id);   /* must not be in */
void idset_del(struct idset *s, uint32_t id);   /* must be in */
void idset_release(struct idset *s);

#endif
