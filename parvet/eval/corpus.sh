#!/usr/bin/env bash
# corpus.sh scores the fanout analyzer against the hand labels in LABELS
# (corpus/ unless given; heldout/ holds the corpus kept apart, whose labels
# were made before parvet ran on it). DIR holds one checkout per labelled
# repository, named as its label file
# (DIR/restic+restic, ...), each at the commit in its label file's header:
#
#	git clone https://github.com/restic/restic DIR/restic+restic
#	git -C DIR/restic+restic checkout <commit>
#
# It runs parvet -fanout over each checkout's non-test code (prometheus and
# minio over the packages that hold labelled loops, which keeps the type
# check of their dependencies to about 25 and 10 CPU-minutes) and prints
# score.py's tables: per shape, and the fixes on the fan-outs labelled
# yes and no per application; its misses and its reports on negatives.
#
# Usage: parvet/eval/corpus.sh DIR [LABELS]
set -uo pipefail
dir=${1:?usage: corpus.sh DIR [LABELS]}
here=$(cd "$(dirname "$0")" && pwd)
labels=$(cd "${2:-$here/corpus}" && pwd)
bin=$(mktemp -d)/parvet
(cd "$here/.." && go build -o "$bin" ./cmd/parvet) || exit 1
for tsv in "$labels"/*.tsv; do
	name=$(basename "$tsv" .tsv)
	repo=$dir/$name
	[ -f "$repo/go.mod" ] || { echo "$name: no checkout in $dir" >&2; continue; }
	pkgs=./...
	flags=
	case $name in
	prometheus+prometheus | minio+minio)
		# The packages of the labelled loops.
		pkgs=$(grep -v '^#' "$tsv" | cut -f1 | cut -d: -f1 | xargs -n1 dirname | sort -u | grep -v '^documentation' | sed 's|^|./|; s|$|/|')
		;;
	kopia+kopia)
		# Without it, the web UI's embed needs a module the proxy lacks.
		flags="-tags nohtmlui"
		;;
	esac
	# shellcheck disable=SC2086
	(cd "$repo" && GOWORK=off nice -n 10 "$bin" -fanout -test=false $flags $pkgs > .parvet-reports.txt 2>&1)
done
python3 "$here/score.py" "$dir" "$labels"
