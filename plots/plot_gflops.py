#!/usr/bin/env python3
"""Draw GFLOPS against matrix size, one curve per CSV, against the measured peak.

    plot_gflops.py CSV [CSV ...] [--peak PEAK_CSV] [--peak-isa ISA] [--title TEXT] -o OUT.png

Each CSV is a harness CSV (step,m,n,k,threads,gflops_best,...); its curve is labelled by its
`step` column. With --peak, a horizontal line marks the measured fp32 peak at the data's
thread count (the best ISA, or --peak-isa), and a right-hand axis reads in % of it.
Malformed or empty input: exit 2 with one line naming the file and the problem.
"""
import argparse
import sys

from harness_csv import PEAK_REQUIRED, REQUIRED, InputError, number, read_rows

def load_series(path):
    rows = read_rows(path, REQUIRED)
    series = {"path": path, "step": rows[0]["step"], "sizes": [], "gflops": [], "failed": [],
              "threads": set(), "kernel": rows[0].get("kernel") or "", "cpu": rows[0].get("cpu") or ""}
    for line, row in enumerate(rows, start=2):
        m = number(path, line, row, "m", int)
        series["sizes"].append(m)
        series["gflops"].append(number(path, line, row, "gflops_best"))
        # verified=0 with max_rel_err=nan means "not checked" (--no-verify), not "wrong".
        unchecked = row["max_rel_err"].strip().lower() == "nan"
        series["failed"].append(row["verified"].strip() != "1" and not unchecked)
        series["unchecked"] = series.get("unchecked", False) or unchecked
        series["threads"].add(number(path, line, row, "threads", int))
    return series


def load_peak(path, threads, isa):
    rows = read_rows(path, PEAK_REQUIRED)
    best = None
    for line, row in enumerate(rows, start=2):
        if row["precision"] != "fp32" or number(path, line, row, "threads", int) != threads:
            continue
        if isa and row["isa"] != isa:
            continue
        gflops = number(path, line, row, "gflops")
        if best is None or gflops > best[1]:
            best = (row["isa"], gflops)
    if best is None:
        wanted = f"isa {isa}, " if isa else ""
        raise InputError(f"{path}: no fp32 row for {wanted}{threads} thread(s)")
    return best


def main(argv):
    parser = argparse.ArgumentParser(description="GFLOPS against size, one curve per CSV.")
    parser.add_argument("csv", nargs="+", help="harness CSV files")
    parser.add_argument("--peak", help="peak CSV (isa,precision,threads,gflops)")
    parser.add_argument("--peak-isa", help="use this ISA's peak (default: the best measured)")
    parser.add_argument("--title", help="figure title (default: the CPU and thread count)")
    parser.add_argument("-o", "--output", required=True, help="PNG file to write")
    args = parser.parse_args(argv)

    try:
        series = [load_series(p) for p in args.csv]
        threads = max(max(s["threads"]) for s in series)
        peak = load_peak(args.peak, threads, args.peak_isa) if args.peak else None
    except InputError as e:
        print(f"plot_gflops.py: {e}", file=sys.stderr)
        return 2

    try:
        import matplotlib
    except ImportError:
        print(f"plot_gflops.py: {sys.executable} cannot import matplotlib "
              "(Debian/Ubuntu: apt-get install python3-matplotlib, and run /usr/bin/python3)",
              file=sys.stderr)
        return 3
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 12, "axes.titlesize": 14, "legend.fontsize": 10})
    fig, ax = plt.subplots(figsize=(9, 5.5), dpi=130)

    labels = [s["step"] for s in series]
    for s in series:
        label = s["step"]
        if labels.count(label) > 1 or len(s["threads"]) > 1 or max(s["threads"]) > 1:
            extra = [f"{max(s['threads'])} threads" if max(s["threads"]) > 1 else "",
                     s["kernel"] if labels.count(label) > 1 else ""]
            label += " (" + ", ".join(e for e in extra if e) + ")" if any(extra) else ""
        if s["step"].startswith("ref_") and s["kernel"]:
            label += ": " + s["kernel"]   # which kernels the library ran, and what it detected
        if s.get("unchecked"):
            label += " (unverified)"
        ax.plot(s["sizes"], s["gflops"], marker="o", markersize=4, linewidth=2, label=label)
        bad = [(x, y) for x, y, f in zip(s["sizes"], s["gflops"], s["failed"]) if f]
        if bad:
            ax.plot([x for x, _ in bad], [y for _, y in bad], linestyle="none", marker="X",
                    markersize=11, color="red", label=f"{s['step']}: FAILED verification")

    top = max(max(s["gflops"]) for s in series)
    if peak:
        isa, value = peak
        ax.axhline(value, color="black", linestyle="--", linewidth=1.5,
                   label=f"measured peak, {isa} fp32, {threads} thread{'s' if threads > 1 else ''}: "
                         f"{value:.1f} GFLOPS")
        top = max(top, value)
        right = ax.secondary_yaxis("right", functions=(lambda g: 100.0 * g / value,
                                                       lambda p: p * value / 100.0))
        right.set_ylabel("% of measured peak")

    cpu = next((s["cpu"] for s in series if s["cpu"]), "")
    title = args.title or (f"SGEMM on {cpu or 'this CPU'}, {threads} thread{'s' if threads > 1 else ''}")
    ax.set_title(title)
    ax.set_xlabel("matrix size (m = n = k)")
    ax.set_ylabel("GFLOPS (best of repetitions)")
    ax.set_ylim(0, top * 1.12)
    ax.set_xlim(left=0)
    ax.grid(True, alpha=0.3)
    handles = ax.get_legend_handles_labels()[0]
    if len(handles) > 5:
        # Many curves: a legend inside would hide some of them, so it goes below the axes.
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=3, frameon=False)
        fig.set_size_inches(9, 5.5 + 0.3 * ((len(handles) + 2) // 3))
    else:
        ax.legend(loc="best")
    fig.tight_layout()
    try:
        fig.savefig(args.output)
    except OSError as e:
        print(f"plot_gflops.py: {args.output}: cannot write ({e.strerror})", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
