"""Run every benchmark module in this folder and print one table.

Usage: python -m bench [module ...]   (default: all modules, in name order)
"""

import importlib
import os
import platform
import pkgutil
import sys
import time

import bench


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


def main(names):
    known = sorted(m.name for m in pkgutil.iter_modules(bench.__path__) if not m.name.startswith("_"))
    if names in (["-h"], ["--help"]):
        print(f"{__doc__.strip()}\nbenchmarks: {', '.join(known)}")
        return 0
    unknown = [n for n in names if n not in known]
    if unknown:
        print(f"no benchmark named {', '.join(unknown)}; the benchmarks are {', '.join(known)}", file=sys.stderr)
        return 2
    names = names or known
    print(f"machine: {machine()}")
    print(f"date:    {time.strftime('%Y-%m-%d %H:%M')}")
    print()
    print(f"| {'benchmark':<58} | {'value':>10} | {'unit':<8} | note")
    print(f"| {'-' * 58} | {'-' * 10} | {'-' * 8} | ----")
    for name in names:
        module = importlib.import_module(f"bench.{name}")
        for row in module.run():
            print(f"| {row['benchmark']:<58} | {row['value']:>10.4g} | {row['unit']:<8} | {row.get('note', '')}",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
