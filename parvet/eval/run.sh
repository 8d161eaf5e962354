#!/usr/bin/env bash
# run.sh evaluates parvet's fanout analyzer on Go code that lives outside this
# repository. It reads one folder, given as its argument, holding one checkout
# per repository (for example /tmp/parvet-eval/<owner>+<name>), and for each:
#
#   1. runs the repository's own tests (go test ./...) and records pass or fail;
#   2. runs fanout over ./... and writes its reports to reports.txt;
#   3. with FIX=1: adds a replace of github.com/gopar-dev/gopar to the gopar
#      checkout this script is in, applies the first suggested fix of each
#      report (parvet -fanout -fix), runs go mod tidy and the tests again.
#
# It prints one line per repository: name, commit, reports, fixes applied,
# tests before, tests after. Reading each report to tell correct ones from
# wrong ones, and the code for fan-outs it missed, is left to a person;
# eval/RESULTS.md holds the results.
#
# Usage: parvet/eval/run.sh DIR        (FIX=1 parvet/eval/run.sh DIR to rewrite)
set -uo pipefail
dir=${1:?usage: run.sh DIR}
here=$(cd "$(dirname "$0")/.." && pwd)      # the parvet module
gopar=$(cd "$here/.." && pwd)               # the gopar module
bin=$(mktemp -d)/parvet
(cd "$here" && go build -o "$bin" ./cmd/parvet) || exit 1

tests() { # tests DIR: "pass" or "fail" for go test ./... (or go build where TESTS=build)
	if (cd "$1" && timeout 600 go test -count=1 ./... > "$1/.parvet-test.log" 2>&1); then
		echo pass
	else
		echo fail
	fi
}

printf '%-28s %-12s %7s %5s %-6s %-6s\n' repository commit reports fixes before after
for repo in "$dir"/*/; do
	repo=${repo%/}
	[ -f "$repo/go.mod" ] || continue
	name=$(basename "$repo")
	commit=$(git -C "$repo" rev-parse --short=12 HEAD 2>/dev/null || echo -)
	before=$(tests "$repo")
	(cd "$repo" && "$bin" -fanout ./... > "$repo/.parvet-reports.txt" 2>&1)
	reports=$(grep -c 'fan-out:' "$repo/.parvet-reports.txt")
	fixes=0 after=-
	if [ "${FIX:-0}" = 1 ] && [ "$reports" -gt 0 ]; then
		(cd "$repo" && go mod edit -require=github.com/gopar-dev/gopar@v0.0.0 -replace=github.com/gopar-dev/gopar="$gopar")
		# -mod=mod: go.sum may lack gopar's own requirements until go mod tidy.
		(cd "$repo" && GOFLAGS=-mod=mod "$bin" -fanout -fix ./... > /dev/null 2>&1)
		(cd "$repo" && git diff -- '*.go' > "$repo/.parvet-fixes.diff")
		fixes=$(grep -cE '^\+.*par\.(Slice|Range)\(.*\.(ForEach|ForEachIndex|TryForEach|TryForEachContext)\(func' "$repo/.parvet-fixes.diff")
		(cd "$repo" && go mod tidy > /dev/null 2>&1 && if [ -d vendor ]; then go mod vendor; fi)
		after=$(tests "$repo")
	fi
	printf '%-28s %-12s %7s %5s %-6s %-6s\n' "$name" "$commit" "$reports" "$fixes" "$before" "$after"
done
