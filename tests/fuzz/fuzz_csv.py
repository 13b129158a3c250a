#!/usr/bin/env python3
"""A deterministic mutation fuzzer for the plot tools' CSV reader (plots/harness_csv.py, and
its loaders of runs, peaks and bandwidths), run for a fixed time.

    fuzz_csv.py PLOTS_DIR [--seconds S] [--seed N]

Debian has no atheris, so this is a plain loop: start from valid harness and peak CSVs, apply
a few random mutations (bytes flipped, inserted or cut; lines repeated or dropped; fields
replaced by awkward tokens: nan, 1e999, unicode digits, quotes, NUL, CR, invalid UTF-8), and
read the result. The reader may accept it or raise InputError with one line naming the file;
any other exception, or a multi-line message, is a failure, printed with the input that made it.
"""
import argparse
import os
import random
import sys
import tempfile
import time

HARNESS = (b"step,m,n,k,threads,gflops_best,gflops_median,seconds_best,max_rel_err,verified,kernel,reps,cpu\n"
           b"05_simd_4x4,100,100,100,1,12.5,12.2,0.00016,1.1e-07,1,sse,3,Some CPU\n"
           b"05_simd_4x4,200,200,200,1,13.5,13.1,0.0011,1.3e-07,0,sse,3,Some CPU\n")
PEAK = (b"isa,precision,threads,gflops\n"
        b"avx512,fp32,1,117.2\navx512,fp64,1,58.1\navx2,fp32,2,150.0\n")
BANDWIDTH = (b"kind,bytes,threads,gbps,level,isa\n"
             b"read,24576,1,331.0,L1,avx512\ntriad,24576,1,503.0,L1,avx512\nread,1048576,2,272.0,L2,avx512\n")
TOKENS = [b"", b"nan", b"-nan", b"inf", b"-1", b"0", b"1e999", b"1e-999", b"0x10", b"1_000",
          "\uff11\uff12".encode(), "\u0661".encode(), b'"', b'""', b'"a,b"', b",", b"\x00", b"\r",
          b"\r\n", b"\n\n", b"\xff\xfe", b"\xc3", b" 12 ", b"12abc", b"9" * 400, b"fp32", b"avx512",
          b"step", b"threads", b"\xef\xbb\xbf"]


def mutate(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(7)
        pos = rng.randint(0, len(data))
        if op == 0 and data:                      # flip a byte
            data[min(pos, len(data) - 1)] = rng.randrange(256)
        elif op == 1:                             # insert a token
            data[pos:pos] = rng.choice(TOKENS)
        elif op == 2:                             # cut a span
            del data[pos:pos + rng.randint(1, 40)]
        elif op == 3:                             # truncate
            del data[pos:]
        elif op == 4:                             # replace a field
            fields = bytes(data).split(b",")
            if fields:
                fields[rng.randrange(len(fields))] = rng.choice(TOKENS)
            data = bytearray(b",".join(fields))
        elif op == 5:                             # repeat or drop a line
            lines = bytes(data).split(b"\n")
            i = rng.randrange(len(lines))
            if rng.random() < 0.5:
                lines.insert(i, lines[i])
            else:
                del lines[i]
            data = bytearray(b"\n".join(lines))
        else:                                     # a very long field
            data[pos:pos] = b"x" * rng.choice([1000, 140000])
    return bytes(data)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("plots")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    sys.path.insert(0, args.plots)
    import harness_csv   # the one reader behind every plot script and summary.py
    readers = [("read_rows", lambda p: harness_csv.read_rows(p, harness_csv.REQUIRED), HARNESS),
               ("read_rows(peak)", lambda p: harness_csv.read_rows(p, harness_csv.PEAK_REQUIRED), PEAK),
               ("load_run", harness_csv.load_run, HARNESS),
               ("load_peak", harness_csv.load_peak, PEAK),
               ("load_bandwidth", harness_csv.load_bandwidth, BANDWIDTH)]

    # Inputs the loop once found, checked first on every run.
    found = [("load_peak", PEAK.replace(b"\navx512,fp64", b'\navx512,fp32,1,",fp64', 1)),
             ("load_run", HARNESS.replace(b",100,100,1,12.5,12.2,0.00016", b"", 1))]
    by_name = {r[0]: r for r in readers}
    regressions = [(by_name[name], data) for name, data in found if name in by_name]

    rng = random.Random(args.seed)
    tried = accepted = 0
    end = time.monotonic() + args.seconds
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "input.csv")
        while time.monotonic() < end or tried < len(regressions):
            if tried < len(regressions):
                (name, call, _), data = regressions[tried]
            else:
                name, call, seed_data = readers[tried % len(readers)]
                data = mutate(rng, seed_data)
            with open(path, "wb") as f:
                f.write(data)
            tried += 1
            try:
                call(path)
                accepted += 1
            except harness_csv.InputError as e:
                text = str(e)
                if "\n" in text or not text.startswith(path):
                    print("fuzz_csv: {}: InputError not one line naming the file: {!r}\n  input: {!r}"
                          .format(name, text, data), file=sys.stderr)
                    return 1
            except Exception as e:  # noqa: BLE001 - anything else is the bug we look for
                print("fuzz_csv: {}: {}: {}\n  input: {!r}".format(name, type(e).__name__, e, data),
                      file=sys.stderr)
                return 1
    print("fuzz_csv: {} inputs in {:.0f} s ({} accepted, the rest refused with one line), readers: {}"
          .format(tried, args.seconds, accepted, ", ".join(r[0] for r in readers)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
