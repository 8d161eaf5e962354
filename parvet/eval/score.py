#!/usr/bin/env python3
"""score.py scores parvet's fanout reports against the hand labels.

Usage: score.py CORPUSDIR [LABELDIR]   (CORPUSDIR holds
<owner>+<name>/.parvet-reports.txt, the output of `parvet -fanout -test=false
./...` run in each checkout; LABELDIR, corpus/ beside this script unless
given, holds <owner>+<name>.tsv)

It matches each report to a label by file and loop line, and prints, per
application, its labelled fan-outs, negatives and reports, then recall
(fan-outs reported / fan-outs labelled) and precision (reports on fan-outs /
reports on labelled loops) per shape, with the misses, the reports on
negatives and the reports on loops that no label names. Where the labels have
a fifth column, rewrite (yes: one gopar call keeps what the program does;
no: it does not), it also prints, per application, how many of the found
fan-outs of each kind get a fix (a report without "; no fix: ").
"""
import collections, glob, os, re, sys

here = os.path.dirname(os.path.abspath(__file__))
corpus = sys.argv[1]
labeldir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, 'corpus')
rep = re.compile(r'^(.*?\.go):(\d+):\d+: (fan-out: .*)$')
tot = collections.defaultdict(lambda: [0, 0, 0])  # shape: labelled fan-outs, found, reports on negatives
misses, falses, unlabelled, found_msgs = [], [], [], []
fixed = {}  # application: [yes found, yes fixed, no found, no fixed, yes labelled, no labelled]
apps = {}  # application: [fan-outs, negatives, reports]
unfixed = []
for tsv in sorted(glob.glob(os.path.join(labeldir, '*.tsv'))):
    name = os.path.basename(tsv)[:-4]
    root = os.path.join(corpus, name)
    labels = {}
    for line in open(tsv):
        if line.startswith('#') or not line.strip():
            continue
        loc, shape, label, note, *rest = line.rstrip('\n').split('\t')
        labels[loc] = (shape, label, note, rest[0] if rest else '')
    reports = {}
    path = os.path.join(root, '.parvet-reports.txt')
    if not os.path.exists(path):
        print(f'{name}: no reports file, skipped', file=sys.stderr)
        continue
    for line in open(path):
        m = rep.match(line.strip())
        if not m:
            continue
        f = os.path.relpath(os.path.realpath(m.group(1)), os.path.realpath(root)) if os.path.isabs(m.group(1)) else m.group(1)
        reports[f'{f}:{m.group(2)}'] = m.group(3)
    fx = fixed.setdefault(name, [0] * 6)
    apps[name] = [sum(1 for l in labels.values() if l[1] == 'fanout'), sum(1 for l in labels.values() if l[1] == 'neg'), len(reports)]
    for loc, (shape, label, note, rewrite) in labels.items():
        if label == 'fanout':
            tot[shape][0] += 1
            k = {'yes': 0, 'no': 2}.get(rewrite)
            if k is not None:
                fx[4 + k // 2] += 1
            if loc in reports:
                tot[shape][1] += 1
                if k is not None:
                    fx[k] += 1
                    if '; no fix: ' not in reports[loc]:
                        fx[k + 1] += 1
                    elif rewrite == 'yes':
                        unfixed.append(f'{name} {loc}: {reports[loc].split("; no fix: ")[-1][:120]}')
            else:
                misses.append(f'{name} {loc} {shape}: {note}')
        elif label == 'neg' and loc in reports:
            tot[shape][2] += 1
            falses.append(f'{name} {loc} {shape}: {note} -- {reports[loc][:120]}')
    for loc, msg in reports.items():
        if loc not in labels and not loc.split(':')[0].endswith('_test.go'):
            unlabelled.append(f'{name} {loc}: {msg[:140]}')
print('| application | fan-outs | negatives | reports |')
print('| --- | --- | --- | --- |')
for name, (n, neg, r) in sorted(apps.items()):
    print(f'| {name.replace("+", "/")} | {n} | {neg} | {r} |')
print()
print('| shape | fan-outs | found | recall | reports on negatives | precision |')
print('| --- | --- | --- | --- | --- | --- |')
T = [0, 0, 0]
for shape in sorted(tot, key=lambda s: -tot[s][0]):
    n, f, fp = tot[shape]
    T = [T[0] + n, T[1] + f, T[2] + fp]
    rec = f'{100*f/n:.0f}%' if n else '-'
    prec = f'{100*f/(f+fp):.0f}%' if f + fp else '-'
    print(f'| {shape} | {n} | {f} | {rec} | {fp} | {prec} |')
n, f, fp = T
print(f'| **all** | **{n}** | **{f}** | **{100*f/n:.0f}%** | **{fp}** | **{100*f/max(1,f+fp):.0f}%** |')
fixed = {k: v for k, v in fixed.items() if v[4] + v[5]}
if fixed:
    print('\n| application | `yes` (labelled, found) | fixed | `no` (labelled, found) | fixed |')
    print('| --- | --- | --- | --- | --- |')
    T = [0] * 6
    for name, (yf, yx, nf, nx, yl, nl) in sorted(fixed.items()):
        T = [a + b for a, b in zip(T, (yf, yx, nf, nx, yl, nl))]
        print(f'| {name} | {yl}, {yf} | {yx} | {nl}, {nf} | {nx} |')
    yf, yx, nf, nx, yl, nl = T
    print(f'| **all** | **{yl}, {yf}** | **{yx} ({100*yx/max(1,yf):.0f}%)** | **{nl}, {nf}** | **{nx}** |')
for title, xs in (('misses', misses), ('reports on negatives', falses), ('reports on unlabelled loops', unlabelled), ('found `yes` fan-outs with no fix', unfixed)):
    print(f'\n{title} ({len(xs)}):')
    for x in xs:
        print('  ' + x)
