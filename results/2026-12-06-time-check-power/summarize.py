#!/usr/bin/env python3
"""The catch rates in README.md, from each check's check.md in this directory: run it here."""
import collections, glob, os, re, statistics

STORES = ['sqlite', 'grdb', 'lmdb', 'packed']
LEVELS = {'unchanged': 'A/A', 'slower-105': '×1.05', 'slower-110': '×1.10', 'slower-120': '×1.20'}
here = os.path.dirname(os.path.abspath(__file__))
checks = collections.defaultdict(list)
for path in sorted(glob.glob(os.path.join(here, '*', 'check.md'))):
    name = os.path.basename(os.path.dirname(path))
    level = LEVELS[name.rsplit('-', 1)[0]]
    text = open(path).read()
    regressions = []
    if '\n## Regressions' in text:
        section = text.split('\n## Regressions', 1)[1].split('\n## ', 1)[0]
        regressions = [line[2:] for line in section.splitlines() if line.startswith('- ')]
    caught = {s for s in STORES + ['every store'] if any(r.startswith(s + ':') for r in regressions)}
    first = text.split('\n## First round', 1)[1].split('\n### Cells', 1)[0]
    ratios = {m.group(1): float(m.group(2))
              for m in re.finditer(r'^\| (\w[\w ]*?) \| \d+ \| ×([\d.]+) \|', first, re.M)}
    four = {m.group(1): float(m.group(2))
            for m in re.finditer(r'^\| (\w+) \| ×[\d.]+ \| \d+ \| \d+ \| ×[\d.]+ \| ×([\d.]+) \|', text, re.M)}
    first_only = []
    if '\n## Found slower by the first round only' in text:
        section = text.split('\n## Found slower by the first round only', 1)[1].split('\n## ', 1)[0]
        first_only = [line[2:] for line in section.splitlines() if line.startswith('- ')]
    checks[level].append(dict(name=name, failed=text.startswith('# ❌'), caught=caught, ratios=ratios, four=four,
                              first_only=first_only,
                              cells=[r for r in regressions if not any(r.startswith(s + ':') for s in STORES + ['every store'])]))

def spread(values):
    return f"×{statistics.median(values):.3f} ({min(values):.3f}–{max(values):.3f})"

print('| slowdown | checks | failed | ' + ' | '.join(f'`{s}` caught' for s in STORES)
      + ' | stores caught | first round\'s store ratios | "caught 4 in 5" stated |')
print('|---|--:|--:|' + '--:|' * len(STORES) + '--:|--:|--:|')
for level in LEVELS.values():
    rows = checks[level]
    n = len(rows)
    per = [sum(s in r['caught'] for r in rows) for s in STORES]
    ratios = [r['ratios'][s] for r in rows for s in STORES if s in r['ratios']]
    fours = [r['four'][s] for r in rows for s in STORES if s in r['four']]
    print(f"| {level} | {n} | {sum(r['failed'] for r in rows)} | " + ' | '.join(f'{k} of {n}' for k in per)
          + f" | {sum(per)} of {n * len(STORES)} | {spread(ratios)} | {spread(fours)} |")
cells = [f"{r['name']}: {c}" for rows in checks.values() for r in rows for c in r['cells']]
print('\nCells that were regressions alone:', '; '.join(cells) if cells else 'none')
first_only = [f"{r['name']}: {line}" for rows in checks.values() for r in rows for line in r['first_only']]
print('\nFound slower by a first round only (not confirmed):')
for line in first_only: print('-', line)
