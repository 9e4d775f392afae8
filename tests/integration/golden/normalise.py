#!/usr/bin/python3
"""Mask what differs between two runs of a golden test: the filter
between sibyl's output and the golden files (README.md).

usage: normalise.py report|csv|plan [NAME=TEXT ...] < output > normalised

First every TEXT (a path of this run: the build, the test's scratch
folder) becomes <NAME>, longest first.  Then, by kind:

  report  In the tables, the cells of the columns named in TABLE_MASK
          (times, shares of the wall time, process and thread ids)
          become '~', right-aligned in the column's width: a cell lies
          between the end of the previous column's heading and the end
          of its own, so the layout stays pinned.  In '#' lines a
          duration becomes '~' and a percentage '~%'.
  csv     The columns named in CSV_MASK become '~'.
  plan    A duration ("0.04 s planner time") becomes '~'; errors,
          samples, points and segments are the planner's and stay.

Everything else is compared as it is: a change there fails the test.
"""
import csv
import io
import re
import sys

TABLE_MASK = {'Total', 'Self', 'Mean', 'Median', 'P90', 'P99', 'Stddev', 'Min',
              'Max', 'Share%', 'Busy', 'Lifetime', 'PID', 'PPID', 'TID'}
CSV_MASK = {'pid', 'tid', 'start_ns', 'end_ns', 'duration_ns', 'self_ns'}
DURATION = re.compile(r'\b\d+(?:\.\d+)? (?:ns|us|ms|s)\b')
PERCENT = re.compile(r'\b\d+(?:\.\d+)?%')
# A heading: words joined by single spaces ("Function [library]").
HEADING = re.compile(r'\S+(?: \S+)*')


def masked_spans(header):
    """(start, end) of each masked column's cells, from its heading."""
    spans, previous_end = [], 0
    for m in HEADING.finditer(header):
        if m.group() in TABLE_MASK:
            spans.append((previous_end, m.end()))
        previous_end = m.end()
    return spans


def mask_cells(line, spans):
    for start, end in spans:
        line = line[:start] + '~'.rjust(end - start) + line[end:]
    return line


def report(lines):
    out, spans = [], []
    for i, line in enumerate(lines):
        if line.startswith('#'):
            line = PERCENT.sub('~%', DURATION.sub('~', line))
        elif not line.strip():
            spans = []
        elif i + 1 < len(lines) and lines[i + 1].startswith('==='):
            spans = masked_spans(line)
        elif not line.startswith('==='):
            line = mask_cells(line, spans)
        out.append(line)
    return out


def csv_rows(lines):
    rows = list(csv.reader(io.StringIO('\n'.join(lines) + '\n')))
    if not rows:
        return []
    masked = [i for i, name in enumerate(rows[0]) if name in CSV_MASK]
    text = io.StringIO()
    writer = csv.writer(text, lineterminator='\n')
    writer.writerow(rows[0])
    for row in rows[1:]:
        writer.writerow(['~' if i in masked else cell for i, cell in enumerate(row)])
    return text.getvalue().splitlines()


def plan(lines):
    return [DURATION.sub('~', line) for line in lines]


def main():
    kinds = {'report': report, 'csv': csv_rows, 'plan': plan}
    if len(sys.argv) < 2 or sys.argv[1] not in kinds:
        sys.exit('usage: normalise.py report|csv|plan [NAME=TEXT ...]')
    text = sys.stdin.read()
    names = [arg.split('=', 1) for arg in sys.argv[2:]]
    for name, path in sorted(names, key=lambda n: -len(n[1])):
        text = text.replace(path, '<%s>' % name)
    for line in kinds[sys.argv[1]](text.splitlines()):
        print(line)


main()
