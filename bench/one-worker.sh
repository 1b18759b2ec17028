# Sourced by the remote benchmarks: start ONE loopback testcluster worker
# with a shared workdir under a fresh $work, write $C/cluster.xml for it
# (2 cores, I/O executors $IO_EXECUTORS when set) and stop it all on exit.
# Sets work, C, name, host, port, user, key, wd.
work=$(mktemp -d "${TMPDIR:-/tmp}/wfrun-bench.XXXXXX")
C="$work/c"
cleanup() { "$TESTCLUSTER" down -q "$C" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT

"$TESTCLUSTER" up -q --shared 1 "$C"
read -r name host port user key wd <"$C/hosts"
cat >"$C/cluster.xml" <<EOF2
<resources>
  <worker name="$name" host="$host" port="$port" user="$user">
    <cores>2</cores>
${IO_EXECUTORS:+    <io-executors>$IO_EXECUTORS</io-executors>}
    <workdir shared="true">$wd</workdir>
    <ssh identity="$key" known-hosts="$C/known_hosts"/>
  </worker>
</resources>
EOF2
