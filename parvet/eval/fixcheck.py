#!/usr/bin/env python3
"""fixcheck.py applies parvet's fanout fixes to one checkout and checks them.

Usage: fixcheck.py PARVET CHECKOUT [PACKAGES...]   (default ./...)

PARVET is a parvet binary; CHECKOUT a git clone of a Go module. It runs
`parvet -fanout -test=false` over the packages, takes the packages whose
reports carry a fix, and in them runs `go vet` and `go test -count=1 -vet=off
-json` (vet's findings are compared on their own) before and after `parvet
-fanout -fix` (with a replace of
github.com/gopar-dev/gopar to the gopar checkout this script is in, and
GOFLAGS=-mod=mod). It prints one line of figures and every test, vet finding
or package whose outcome changed, writes the fixes to CHECKOUT/.parvet-fixes.diff,
and restores the checkout's tracked files. It exits 1 when something changed.

Adding gopar raises a module's go line to gopar's where it is older, which
turns on newer vet checks in go test; the go line is raised before the
first measure, so that both measure the fixes alone.

Environment: RUN, a -run pattern for the tests (a package whose whole suite
takes too long); TESTPKGS, the packages to test where the fixed packages'
tests live elsewhere (esbuild's internal/bundler_tests); TEST_TIMEOUT, go
test's -timeout (default 20m).
"""
import json, os, re, subprocess, sys

parvet, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
patterns = sys.argv[3:] or ['./...']
gopar = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
env = dict(os.environ, GOWORK='off', GOFLAGS='-mod=mod')
report = re.compile(r'^(.*?\.go):(\d+):\d+: (fan-out: .*)$')


def run(args, **kw):
    return subprocess.run(args, cwd=root, env=env, capture_output=True, text=True, **kw)


def fixed_packages():
    """The packages (./dir) whose fan-out reports carry a fix, and the count of such reports."""
    out = run([parvet, '-fanout', '-test=false', *patterns])
    dirs, n = set(), 0
    for line in (out.stdout + out.stderr).splitlines():
        m = report.match(line.strip())
        if m and '; no fix: ' not in m.group(3):
            path = m.group(1) if os.path.isabs(m.group(1)) else os.path.join(root, m.group(1))
            dirs.add('./' + os.path.relpath(os.path.dirname(path), root))
            n += 1
    return sorted(dirs), n


def vet(pkgs):
    """go vet's findings, one per line, with line numbers dropped (a fix moves lines)."""
    out = run(['go', 'vet', *pkgs])
    lines = [re.sub(r':\d+(:\d+)?:', ':', l) for l in out.stderr.splitlines() if not l.startswith('#') and not l.startswith('go: ')]
    return out.returncode, sorted(lines)


def tests(pkgs):
    """The outcome of each test and package: {name: pass, fail or skip}."""
    args = ['go', 'test', '-count=1', '-vet=off', '-json', '-timeout', os.environ.get('TEST_TIMEOUT', '20m')]
    if os.environ.get('RUN'):
        args += ['-run', os.environ['RUN']]
    out = run(args + pkgs)
    got = {}
    for line in out.stdout.splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if ev.get('Action') in ('pass', 'fail', 'skip'):
            got[ev['Package'] + (' ' + ev['Test'] if ev.get('Test') else '')] = ev['Action']
    if out.returncode != 0 and not any(v == 'fail' for v in got.values()):
        got['(build)'] = 'fail: ' + out.stderr.strip()[-300:]
    return got


def go_line(path):
    """The go line of the go.mod at path, as a tuple of numbers, or ()."""
    for line in open(path):
        if line.startswith('go '):
            return tuple(int(x) for x in line.split()[1].split('.'))
    return ()


def count(got, what):
    return sum(1 for k, v in got.items() if ' ' in k and v == what)


pkgs, nfix = fixed_packages()
name = os.path.basename(root)
if not pkgs:
    print(f'{name}: no fixes')
    sys.exit(0)
want = go_line(os.path.join(gopar, 'go.mod'))
if go_line(os.path.join(root, 'go.mod')) < want:
    run(['go', 'mod', 'edit', '-go=' + '.'.join(map(str, want))])
testpkgs = os.environ['TESTPKGS'].split() if os.environ.get('TESTPKGS') else pkgs
vet0, tests0 = vet(pkgs), tests(testpkgs)
run(['go', 'mod', 'edit', '-require=github.com/gopar-dev/gopar@v0.0.0', '-replace=github.com/gopar-dev/gopar=' + gopar])
run([parvet, '-fanout', '-test=false', '-fix', *patterns])
diff = run(['git', 'diff', '--', '*.go']).stdout
with open(os.path.join(root, '.parvet-fixes.diff'), 'w') as f:
    f.write(diff)
build = run(['go', 'build', *pkgs])
vet1, tests1 = vet(pkgs), tests(testpkgs)
run(['git', 'checkout', '-qf', 'HEAD', '--', '.'])

changed = []
if build.returncode != 0:
    changed.append('build fails: ' + build.stderr.strip()[-500:])
if vet0 != vet1:
    changed += [f'vet before: {l}' for l in vet0[1] if l not in vet1[1]]
    changed += [f'vet after: {l}' for l in vet1[1] if l not in vet0[1]]
    if vet0[0] != vet1[0]:
        changed.append(f'vet exit status {vet0[0]} -> {vet1[0]}')
for k in sorted(set(tests0) | set(tests1)):
    if tests0.get(k) != tests1.get(k):
        changed.append(f'{k}: {tests0.get(k, "absent")} -> {tests1.get(k, "absent")}')
if len(changed) > 40:
    changed = changed[:40] + [f'... and {len(changed) - 40} more']
files = len(re.findall(r'^\+\+\+ ', diff, re.M))
print(f'{name}: {nfix} fixes in {files} files, {len(pkgs)} packages ({" ".join(pkgs)}); '
      f'build {"ok" if build.returncode == 0 else "FAILS"}; vet {"as before" if vet0 == vet1 else "CHANGED"}; '
      f'tests passed/failed/skipped {count(tests0, "pass")}/{count(tests0, "fail")}/{count(tests0, "skip")} before, '
      f'{count(tests1, "pass")}/{count(tests1, "fail")}/{count(tests1, "skip")} after')
for c in changed:
    print('  changed: ' + c)
sys.exit(1 if changed else 0)
