#!/usr/bin/env bash
# Containers: N trivial tasks (true) each in a docker container, run by
# wfrun, against the same N `docker run`s started by xargs with the same
# parallelism: wfrun's overhead per task over the engine's own time.  A
# second, small run through a logging `docker` on PATH counts how often
# wfrun asks the engine about the image (image inspect, pull): once per
# worker, not per task.  Needs root and a dockerd (tests/cluster/dockerd
# up DIR starts one) and /bin/busybox (busybox-static) for the image.
#
#   bench/containers.sh
#   N=50 J=2 bench/containers.sh
#
# Knobs (environment): WFRUN (default build/wfrun), N tasks (default 200),
# J tasks at once (default 2), REPS rounds of each (default 2: the best
# of each is kept).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
WFRUN=${WFRUN:-$top/build/wfrun}
N=${N:-200} J=${J:-2} REPS=${REPS:-2}
IMG=wfrun-bench-busybox:1
d=$(mktemp -d /tmp/wfrun-bench-containers.XXXXXX)
trap 'rm -rf "$d"; docker rmi -f "$IMG" >/dev/null 2>&1 || true' EXIT

docker info >/dev/null 2>&1 || { echo "no dockerd answers" >&2; exit 1; }
mkdir -p "$d/rootfs/bin" "$d/rootfs/tmp"
cp /bin/busybox "$d/rootfs/bin/"
ln -s busybox "$d/rootfs/bin/sh"
ln -s busybox "$d/rootfs/bin/true"
tar -C "$d/rootfs" -c . | docker import - "$IMG" >/dev/null

mkdir -p "$d/wf"
cat >"$d/wf/wf.yaml" <<YAML
container: $IMG
tasks:
  - name: t
    foreach: {i: "1..$N"}
    run: "true"
YAML

now() { date +%s.%N; }
best_wf= best_dk=
for r in $(seq "$REPS"); do
	rm -rf "$d/wf/.wfrun"
	t0=$(now)
	(cd "$d/wf" && "$WFRUN" -q -j "$J" wf.yaml)
	t1=$(now)
	seq "$N" | xargs -P "$J" -I{} docker run --rm --network none \
		--user "$(id -u):$(id -g)" -v "$d/wf:$d/wf" -w "$d/wf" \
		"$IMG" /bin/sh -c true
	t2=$(now)
	w=$(echo "$t1 - $t0" | bc) k=$(echo "$t2 - $t1" | bc)
	echo "round $r: wfrun $w s, docker run x$N $k s"
	if [ -z "$best_wf" ] || [ "$(echo "$w < $best_wf" | bc)" = 1 ]; then best_wf=$w; fi
	if [ -z "$best_dk" ] || [ "$(echo "$k < $best_dk" | bc)" = 1 ]; then best_dk=$k; fi
done
echo "best: wfrun $best_wf s, docker run $best_dk s for $N tasks, $J at once"
echo "overhead per task: $(echo "scale=4; ($best_wf - $best_dk) / $N" | bc) s" \
	"($(echo "scale=2; 100 * ($best_wf - $best_dk) / $best_dk" | bc) %)"

# The engine asked about the image: a logging docker first on PATH.
mkdir -p "$d/shim" "$d/count"
real=$(command -v docker)
printf '#!/bin/sh\necho "$*" >> %s/calls\nexec %s "$@"\n' "$d" "$real" >"$d/shim/docker"
chmod +x "$d/shim/docker"
sed "s/1..$N/1..20/" "$d/wf/wf.yaml" >"$d/count/wf.yaml"
(cd "$d/count" && PATH="$d/shim:$PATH" "$WFRUN" -q -j "$J" wf.yaml)
echo "20 tasks: docker image inspect $(grep -c '^image inspect' "$d/calls" || true)," \
	"pull $(grep -c '^pull' "$d/calls" || true), run $(grep -c '^run' "$d/calls" || true)"
