#!/usr/bin/env python3
"""Stored properties of a class, counted over its file and every `extension NAME` file
(issue 34's figure for the engine and the window). Not a test.

    scripts/stored-properties.py ClientEngine Sources/RFB
    scripts/stored-properties.py ViewerWindow Sources/SDLViewer

A stored property is a `var` or `let` at the top level of the class or extension body (four
spaces in), unless it is computed (`{` before any `=`, without `didSet`/`willSet`).
Extensions cannot hold stored properties, so they add none; they are listed for the method
spread.
"""
import os
import re
import sys

name, root = sys.argv[1], sys.argv[2]
decl = re.compile(r'^    (?:@\w+(?:\([^)]*\))? )*(?:public |private |fileprivate |internal )?'
                  r'(?:internal\(set\) |private\(set\) |public\(set\) )?(?:unowned(?:\(\w+\))? )?(?:weak )?(?:lazy )?(var|let) (\w+)(.*)$')
stored, files = [], []
for d, _, fs in os.walk(root):
    for f in sorted(fs):
        if not f.endswith('.swift'):
            continue
        path = os.path.join(d, f)
        inside = False
        lines = open(path, encoding='utf-8').readlines()
        for i, line in enumerate(lines):
            if re.match(r'^(public |open )?(final )?class ' + name + r'\b', line) or line.startswith('extension ' + name + ' ') \
                    or line.startswith('extension ' + name + ':') or line.startswith('extension ' + name + '{'):
                inside = True
                files.append(path)
                continue
            if inside and line.startswith('}'):
                inside = False
                continue
            if not inside:
                continue
            m = decl.match(line.rstrip('\n'))
            if not m:
                continue
            rest = m.group(3)
            # an observer may open on the next line: `var x: T? {` then `didSet {`
            if rest.rstrip().endswith('{') and i + 1 < len(lines):
                rest += lines[i + 1]
            head = rest.split('{')[0]
            if '{' in rest and '=' not in head and 'didSet' not in rest and 'willSet' not in rest:
                continue
            stored.append(m.group(2))
print(f"{name}: {len(stored)} stored properties, in {len(set(files))} files")
print("  " + " ".join(stored))
for f in sorted(set(files)):
    print("  " + f)
