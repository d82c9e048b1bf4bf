"""benchplot - the benchmarks' charts, drawn by gnuplot (gnuplot-nox).

Imported by tools/bench and tools/bench-linux. A chart is a figure, not a
verdict: every function returns None when it wrote its file, or a line
saying why not (gnuplot missing or failing), and never raises for that.
tools/install-deps.sh --bench installs gnuplot.
"""

import os
import shutil
import subprocess
import tempfile


def _quote(text):
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')


def _gnuplot(script, data, path):
    """Run script (size, commands) with the data blocks (name -> text)
    defined first; path's suffix picks SVG or PNG (.png)."""
    if shutil.which("gnuplot") is None:
        return "gnuplot is missing (tools/install-deps.sh --bench installs it)"
    blocks = "".join("$%s << EOD\n%sEOD\n" % (name, text) for name, text in data.items())
    term = "pngcairo" if path.endswith(".png") else "svg"
    with tempfile.NamedTemporaryFile("w", suffix=".gp", delete=False) as f:
        f.write("set terminal %s size %s font 'sans,11' background rgb 'white'\n"
                "set output %s\nset termoption noenhanced\n%s%s\n" % (term, script[0], _quote(path), blocks, script[1]))
    try:
        r = subprocess.run(["gnuplot", f.name], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "gnuplot: %s" % e
    finally:
        os.unlink(f.name)
    if r.returncode != 0:
        return "gnuplot failed: %s" % r.stderr.strip().splitlines()[-1:]
    return None


def bars(path, title, items):
    """A horizontal bar chart of (label, value) items to path (SVG or PNG)."""
    if not items:
        return "nothing to plot"
    rows = "".join("%d %s %g\n" % (i, _quote(label), v) for i, (label, v) in enumerate(items))
    script = ("set title %s\nset style fill solid 0.8\nunset key\nset grid x\n"
              "set xrange [0:*]\nset yrange [%g:-0.6]\nset ytics scale 0\n"
              "set offsets 0, graph 0.1, 0, 0\n"
              "plot $bars using 3:1:(0):3:($1-0.35):($1+0.35):ytic(2) with boxxyerror "
              "lc rgb '#4a7ab5', '' using 3:1:(sprintf('%%.1f', $3)) with labels left offset 0.5,0"
              % (_quote(title), len(items) - 0.4))
    return _gnuplot(("760,%d" % (80 + 28 * len(items)), script), {"bars": rows}, path)


def lines(path, title, panels, series, ylabel):
    """Small multiples: one panel per (name, {series: [(x, y), ...]}) of
    panels, each drawing the given series (names, in legend order) against
    x on a log-2 axis, to path (SVG or PNG)."""
    if not panels:
        return "nothing to plot"
    cols = 2
    nrows = (len(panels) + cols - 1) // cols
    data, plots = {}, []
    for i, (name, by_series) in enumerate(panels):
        cmds = []
        for k, s in enumerate(series):
            block = "p%d_%d" % (i, k)
            data[block] = "".join("%g %g\n" % xy for xy in sorted(by_series.get(s, [])))
            if data[block]:
                cmds.append("$%s using 1:2 with linespoints lw 2 pt 7 lc %d title %s"
                            % (block, k + 1, _quote(s)))
        plots.append("set title %s\nplot %s\n" % (_quote(name), ", ".join(cmds) or "NaN notitle"))
    script = ("set multiplot layout %d,%d title %s\nset logscale x 2\nset xlabel 'threads'\n"
              "set ylabel %s\nset yrange [0:*]\nset grid\nset key top left horizontal\n"
              "set offsets graph 0.05, graph 0.05, graph 0.3, 0\n"
              "set format y '%%.1s%%c'\n%sunset multiplot\n"
              % (nrows, cols, _quote(title), _quote(ylabel), "".join(plots)))
    return _gnuplot(("900,%d" % (60 + 260 * nrows), script), data, path)
