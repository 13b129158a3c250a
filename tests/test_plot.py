"""The plotting script draws a PNG from small CSVs and exits 2, with one line, on bad input.

    test_plot.py PATH/TO/plot_gflops.py      (run by ctest with the interpreter that has matplotlib)
"""
import os
import subprocess
import sys
import tempfile

HEADER = "step,m,n,k,threads,gflops_best,gflops_median,seconds_best,max_rel_err,verified,kernel,reps,cpu\n"


def run(script, args):
    return subprocess.run([sys.executable, script] + args, capture_output=True, text=True)


def main():
    script = sys.argv[1]
    failures = []

    def expect(condition, what):
        if not condition:
            failures.append(what)

    with tempfile.TemporaryDirectory() as d:
        def write(name, text):
            path = os.path.join(d, name)
            with open(path, "w") as f:
                f.write(text)
            return path

        a = write("a.csv", HEADER + "".join(
            f"04_unroll_4x4,{n},{n},{n},1,{3 + n / 500:.2f},3.0,0.1,1e-7,1,scalar,3,Test CPU\n"
            for n in (100, 200, 300)))
        b = write("b.csv", HEADER + "".join(
            f"05_simd_4x4,{n},{n},{n},1,{9 + n / 300:.2f},9.0,0.1,1e-7,{0 if n == 300 else 1},sse,3,Test CPU\n"
            for n in (100, 200, 300)))
        peak = write("peak.csv", "isa,precision,threads,gflops\nsse,fp32,1,29.5\navx512,fp32,1,117.2\n"
                                 "avx512,fp64,1,58.6\navx512,fp32,2,230.0\n")
        out = os.path.join(d, "out.png")
        r = run(script, [a, b, "--peak", peak, "--title", "test", "-o", out])
        expect(r.returncode == 0, f"good input: exit {r.returncode}: {r.stderr}")
        with open(out, "rb") as f:
            expect(f.read(8) == b"\x89PNG\r\n\x1a\n", "the output is not a PNG")
        expect(os.path.getsize(out) > 10000, "the PNG is suspiciously small")

        unchecked = write("unchecked.csv", HEADER + "04_unroll_4x4,100,100,100,1,3.0,3.0,0.1,nan,0,scalar,3,x\n")
        r = run(script, [unchecked, "-o", os.path.join(d, "unchecked.png")])
        expect(r.returncode == 0, f"an unverified CSV (--no-verify) still plots: exit {r.returncode}: {r.stderr}")

        r = run(script, [a, "--peak", peak, "--peak-isa", "sse", "-o", os.path.join(d, "sse.png")])
        expect(r.returncode == 0, f"--peak-isa sse: exit {r.returncode}: {r.stderr}")

        bad_inputs = {
            "empty.csv": "",
            "header_only.csv": HEADER,
            "wrong_columns.csv": "size,gflops\n100,3\n",
            "not_a_number.csv": HEADER + "04_unroll_4x4,100,100,100,1,fast,3,0.1,1e-7,1,scalar,3,x\n",
        }
        for name, text in bad_inputs.items():
            path = write(name, text)
            r = run(script, [path, "-o", os.path.join(d, "bad.png")])
            expect(r.returncode == 2, f"{name}: exit {r.returncode}, wanted 2")
            lines = r.stderr.strip().splitlines()
            expect(len(lines) == 1 and name in lines[0], f"{name}: stderr should be one line naming it: {r.stderr!r}")
        r = run(script, [os.path.join(d, "missing.csv"), "-o", out])
        expect(r.returncode == 2 and "missing.csv" in r.stderr, f"missing file: exit {r.returncode}")
        r = run(script, [a, "--peak", write("p2.csv", "isa,precision,threads,gflops\nsse,fp64,1,10\n"), "-o", out])
        expect(r.returncode == 2 and "fp32" in r.stderr, f"peak without fp32 row: exit {r.returncode}")

    for f in failures:
        print("FAIL:", f)
    print(f"plot tests: {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
