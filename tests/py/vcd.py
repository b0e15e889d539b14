"""A small VCD reader for tests: value changes of each signal by its dotted path."""


def read_vcd(path):
    """Returns {"scope.sub.signal": [(time, value), ...]} with values as ints."""
    ids = {}
    scope = []
    changes = {}
    time = 0
    with open(path) as f:
        in_header = True
        for line in f:
            words = line.split()
            if not words:
                continue
            if in_header:
                if words[0] == "$scope":
                    scope.append(words[2])
                elif words[0] == "$upscope":
                    scope.pop()
                elif words[0] == "$var":
                    name = ".".join(scope[1:] + [words[4]])  # drop the top "SystemC" scope
                    ids.setdefault(words[3], []).append(name)
                    changes[name] = []
                elif words[0] == "$enddefinitions":
                    in_header = False
                continue
            w = words[0]
            if w.startswith("#"):
                time = int(w[1:])
            elif w.startswith("b"):
                for name in ids.get(words[1], []):
                    changes[name].append((time, int(w[1:], 2)))
            elif w[0] in "01xz" and len(w) > 1:
                for name in ids.get(w[1:], []):
                    changes[name].append((time, int(w[0]) if w[0] in "01" else None))
    return changes
