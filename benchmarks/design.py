"""Measure `cpsolve design` and write results/design.md: the snake census, its cross-check against
cpsolve's own chain model, sampling, the piece-set demos and `design unique`.

    python benchmarks/design.py                  # about 15 minutes on 2 cores; writes results/design.md
    python benchmarks/design.py --big            # also the whole 3x3x4 census
    python benchmarks/design.py --quick          # smaller runs, to try the script
    python benchmarks/design.py --only-unique    # only the `design unique` section (a minute), spliced into
                                                 # the existing results/design.md

Every number in results/design.md comes from this script's run (the published figures it compares
with are quoted with their sources).
"""

from __future__ import annotations

import argparse
import platform
import random
import time
from collections import Counter
from pathlib import Path

from cpsolve.analysis.design import pieces as design
from cpsolve.analysis.design import snake, unique
from cpsolve.puzzle.catalog import load
from cpsolve.puzzle.geometry import Shape

REPO = Path(__file__).resolve().parent.parent


def census_rows(boxes: list[tuple[int, int, int]], workers: int = 1) -> list[str]:
    rows = ["| box | cells | directed paths | ordered chains | chains | palindromic | exactly one folding | "
            "most foldings | foldings (all chains) | seconds (1 core) |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for size in boxes:
        start = time.process_time() if workers == 1 else time.perf_counter()
        c = snake.census(size, workers=workers)
        seconds = (time.process_time() if workers == 1 else time.perf_counter()) - start
        s = c.summary()
        directed = sum(2 * ch.total for ch in c.chains)
        rows.append(f"| {s['box']} | {size[0] * size[1] * size[2]} | {directed} | {s['ordered_chains']} | "
                    f"{s['chains']} | {s['palindromic_chains']} | {s['unique_chains']} | {s['max_foldings']} | "
                    f"{s['foldings']} | {seconds:.2f}{'' if workers == 1 else f' (wall, {workers} workers)'} |")
        print(rows[-1], flush=True)
    return rows


def partial_census(size: tuple[int, int, int], budget: float) -> str:
    """Run the census's parts in order for `budget` CPU seconds: how far it gets."""
    graph = snake.box_graph(size)
    parts = snake.prefixes(graph, 5)
    start = time.process_time()
    done = 0
    for prefix, _ in parts:
        snake.best_walker()(graph, prefix)
        done += 1
        if time.process_time() - start > budget:
            break
    spent = time.process_time() - start
    hours = spent * len(parts) / done / 3600
    return (f"{'x'.join(map(str, size))}: {done} of {len(parts)} parts of the census in {spent:.0f} s CPU "
            f"(parts differ in size; a straight-line estimate for the whole is {hours:.1f} h)")


def cross_check(n_random: int, n_palindromes: int) -> tuple[list[str], int]:
    census = snake.census((3, 3, 3))
    rng = random.Random(17)
    chosen = rng.sample(census.chains, n_random) + rng.sample([c for c in census.chains if c.palindrome], n_palindromes)
    start = time.perf_counter()
    bad = []
    for chain in chosen:
        got = snake.enumerate_chain((3, 3, 3), chain.segments)
        if got != (chain.total, chain.up_to_rotation, chain.foldings):
            bad.append((chain.segments, got, (chain.total, chain.up_to_rotation, chain.foldings)))
    seconds = time.perf_counter() - start
    spread = Counter(c.foldings for c in chosen)
    lines = [f"{len(chosen)} chains of the 3x3x3 census ({n_random} drawn at random with seed 17, {n_palindromes} "
             f"palindromic), each written as a chain puzzle and enumerated by cpsolve's chain model (`sat` backend, "
             f"symmetry breaking and canonicalizer: none of the census's code): {len(chosen) - len(bad)} agree on all "
             f"three counts (total, up to rotation, up to rotation and reflection), {len(bad)} differ; "
             f"{seconds:.0f} s in all. Foldings among them: "
             + ", ".join(f"{k}: {v}" for k, v in sorted(spread.items())[:8])
             + (", ..." if len(spread) > 8 else "") + "."]
    lines += [f"- DIFFERS: {b}" for b in bad]
    return lines, len(bad)


def sample(size: tuple[int, int, int], draws: int, budget: float, max_nodes: int = 20_000_000) -> str:
    graph = snake.box_graph(size)
    rng = random.Random(1)
    stream = snake.random_foldings(graph, rng)
    start = time.perf_counter()
    tally = Counter[str]()
    first = None
    for _ in range(draws):
        draw = snake.judge_chain(graph, snake.sequence_of_path(graph, next(stream)), max_nodes)
        tally[draw.verdict] += 1
        if draw.verdict == "unique":
            first = first or time.perf_counter() - start
        if time.perf_counter() - start > budget:
            break
    seconds = time.perf_counter() - start
    n = sum(tally.values())
    return (f"| {'x'.join(map(str, size))} | {n} | {tally['unique']} | {tally['several']} | {tally['undecided']} | "
            f"{seconds:.1f} | {tally['unique'] * 3600 / seconds:.0f} | {'-' if first is None else f'{first:.2f}'} |")


def pieces_row(label: str, command: str, boxes: list[tuple[int, int, int]], pool: dict[str, Shape],
               copies: int, workers: int) -> tuple[str, list[design.Verdict]]:
    start = time.perf_counter()
    first = None
    tally = Counter[str]()
    finds = []
    for v in design.search(design.jobs(boxes, pool, copies), pool, workers=workers):
        tally[v.status] += 1
        if v.status == "unique":
            first = first or time.perf_counter() - start
            finds.append(v)
    seconds = time.perf_counter() - start
    n = sum(tally.values())
    searched = n - tally["pruned"]
    row = (f"| {label} | `{command}` | {n} | {tally['pruned']} | {tally['none']} | {tally['several']} | "
           f"{tally['unique']} | {seconds:.1f} | {n / seconds:.0f} | {searched / seconds:.0f} | "
           f"{'-' if first is None else f'{first:.2f}'} |")
    print(row, flush=True)
    return row, finds


SPARE = (Path(__file__).resolve().parent / "puzzles" / "design-spare.yaml").read_text()
"""Three optional cells (`+`), pieces of volume 10 in 12 cells (shared with tests/test_design.py)."""
RANGED = (Path(__file__).resolve().parent / "puzzles" / "design-ranged.yaml").read_text()
"""0 to 4 monocubes (a range) and colours already in the file (shared with tests/test_design.py)."""

UNIQUE_HEADING = "## Making a puzzle unique (`cpsolve design unique MODEL --change fix|mark|hole`)"


def unique_section() -> list[str]:
    """The `design unique` table: every built-in packing it is quick on, and two small puzzles with spare volume."""
    from cpsolve.api import puzzle_from_yaml
    from cpsolve.errors import CpsolveError

    lines = [UNIQUE_HEADING, "",
             "One pass over every assembly (the unbroken problem: every rotated copy) counts each possible change; "
             "a change counted in exactly one assembly leaves one. **fix**: a piece glued at a placement. **mark**: a "
             "container cell and one cube of a piece painted alike, every other cell painted `unmarked`, so that cube "
             "must sit on that cell (BurrTools' colour rule: an uncoloured cell matches anything, so a lone painted "
             "pair would force nothing). **hole**: a cell taken out of the container; counted in one pass of the "
             "puzzle with one (then two) extra monocubes, whose place is the hole; only puzzles with spare volume "
             "(optional cells, ranges) can have one. Size 1 is tried first, then 2. \"assemblies counted\" is the "
             "pass's count (for holes: of the puzzle with the monocubes, so summed over every hole position). Each "
             "suggestion (at most 5, one per rotation orbit) is written as a puzzle file and proved by enumerating "
             "that file (loader, `prepare`, `enumerate_classes`); \"seconds\" includes those proofs. `spare` and "
             "`ranged` are the small puzzles of `tests/test_design.py` (in `benchmarks/design.py`; not built-in).", "",
             "| model | change | assemblies counted | size | changes leaving one assembly | suggestions proved "
             "(file total = 1) | seconds |", "|---|---|---:|---:|---:|---:|---:|"]
    puzzles = [(m, load(m)) for m in ("t-tetracube-6x6x2", "slothouber-graatsma", "cubissimo", "soma")]
    puzzles += [("spare", puzzle_from_yaml(SPARE, "spare")), ("ranged", puzzle_from_yaml(RANGED, "ranged"))]
    pelikan = REPO.parent / "shared" / "burrtools-examples" / "PelikanBurr.xmpuzzle"
    if pelikan.exists():  # a designer's burr with 216 optional cells; test data, not shipped
        puzzles.append(("PelikanBurr (BurrTools example)", load(str(pelikan))))
    for label, puzzle in puzzles:
        for kind in unique.KINDS:
            start = time.perf_counter()
            try:
                report = unique.suggest_changes(puzzle, kind, limit=5)
            except CpsolveError as exc:
                lines.append(f"| {label} | {kind} | {exc.message} | | | | {time.perf_counter() - start:.2f} |")
                continue
            seconds = time.perf_counter() - start
            if report.note:
                lines.append(f"| {label} | {kind} | - | - | cannot apply: no spare volume | - | {seconds:.2f} |")
            else:
                proved = sum(1 for c in report.changes if c.verified_total == 1)
                size = report.size or "none of 1 or 2"
                lines.append(f"| {label} | {kind} | {report.assemblies} | {size} | {report.candidates} | "
                             f"{proved} of {len(report.changes)} | {seconds:.2f} |")
            print(lines[-1], flush=True)
    if not pelikan.exists():
        lines += ["", f"(PelikanBurr skipped: {pelikan} is absent.)"]
    lines += ["", "slothouber-graatsma takes no marks of size 1 or 2: its six 1x2x2 pieces are identical and carry "
              "every cube alike (the piece's rotations exchange all four), so a mark on one only says \"a 1x2x2 "
              "covers this cell\", which the monocubes' three cells decide, and each of the four space diagonals they "
              "can lie on carries two of its 8 assemblies: no number of marks tells those two apart. "
              "PelikanBurr's 288 assemblies (12 up to rotation) need more than two fixes or marks; its hole pass "
              "(a monocube in any of 216 optional cells) goes over the 500,000-assembly limit and is refused in "
              "one line."]
    soma = unique.suggest_changes(load("soma"), "mark", limit=1).changes[0]
    lines += ["", f"For example, soma with two marks (`cpsolve design unique soma --change mark`): {soma.text[5:]}; "
              "the file:", "", "```yaml", soma.file_text.rstrip(), "```", ""]
    return lines


def splice_unique(out: Path) -> None:
    """Replace the `design unique` section (the file's last) of an existing results file, saying so in it."""
    text = out.read_text(encoding="utf-8")
    at = text.find("## Making a puzzle unique")
    if at < 0:
        raise SystemExit(f"{out} has no `design unique` section: run the whole script")
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    lines = unique_section()
    lines.insert(2, f"(This section rewritten by `python benchmarks/design.py --only-unique` on {started}, "
                    f"{platform.machine()}, {platform.python_version()}; the rest of the file by the run named at "
                    f"the top.)")
    lines.insert(3, "")
    out.write_text(text[:at] + "\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller runs (not for results/)")
    parser.add_argument("--big", action="store_true", help="also the full 3x3x4 census (2 workers, ~15 min)")
    parser.add_argument("--out", type=Path, default=REPO / "results" / "design.md")
    parser.add_argument("--only-unique", action="store_true",
                        help="rerun only the `design unique` section and replace it in the existing --out file")
    args = parser.parse_args()
    if args.only_unique:
        splice_unique(args.out)
        return
    quick = args.quick
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    lines = ["# Designing puzzles with exactly one solution", "",
             f"Written by `python benchmarks/design.py{' --quick' if quick else ''}{' --big' if args.big else ''}` "
             f"on {started} "
             f"({platform.machine()}, {platform.python_version()}, C census search "
             f"{'built' if snake.native_available() else 'NOT built: Python twin'}). Every figure below comes from "
             f"that run; the CLI command that computes each on its own is shown with it.", ""]

    boxes = [(2, 2, 2), (2, 2, 3), (2, 2, 4), (2, 3, 3), (2, 2, 5), (2, 3, 4), (2, 2, 6), (3, 3, 3)]
    if not quick:
        boxes += [(2, 3, 5), (2, 2, 8), (2, 4, 4)]
    lines += ["## Snake cubes: the census (`cpsolve design snake --box AxBxC`)", "",
              "Each folding is a Hamiltonian path of the box; the paths are enumerated once (from one first step "
              "per symmetry orbit) and filed by their straight/turn sequence. A chain and its reverse are one chain; "
              "foldings are counted up to rotation and reflection, a palindromic chain's two readings being one. "
              "\"directed paths\" counts every path from each end in the fixed box.", ""]
    lines += census_rows(boxes)
    twin = []
    for size in ((2, 3, 3), (2, 3, 4)):
        times = []
        for walker in (snake.walk, snake.best_walker()):
            start = time.process_time()
            snake.census(size, walker)
            times.append(time.process_time() - start)
        twin.append(f"{'x'.join(map(str, size))}: Python {times[0]:.2f} s, C {times[1]:.2f} s "
                    f"({times[0] / max(times[1], 1e-9):.0f}x)")
    lines += ["", "The readable Python search (`snake.walk`, a bitmask depth-first search) against the C one, "
              "same census, CPU seconds: " + "; ".join(twin) + ". The C search also prunes (a free cell left "
              "with no way in, two forced ends, free cells cut off from the head), which the Python one does not."]
    lines += ["", "How far it goes: the time follows the number of directed paths, which grows steeply with the "
              "volume and with how close to a cube the box is (the table). The next cube-like box, 3x3x4:", ""]
    if args.big:
        lines += census_rows([(3, 3, 4)], workers=2)
        lines += ["", "(`cpsolve design snake --box 3x3x4 --workers 2`, this script with `--big`.) Beyond that the "
                  "census is out of reach (4x4x4 has 64 cells); `--sample` takes over."]
    elif not quick:
        lines.append("- " + partial_census((3, 3, 4), 60.0) + " (`--big` runs it to the end)")
    lines.append("")
    c333 = snake.census((3, 3, 3))
    s333 = c333.summary()
    directed = sum(2 * ch.total for ch in c333.chains)
    folds = int(s333["foldings"])
    reverse_fixed = folds * 96 - directed
    unique_folds = sum(1 for ch in c333.chains if ch.foldings == 1)
    lines += ["", "## The 3x3x3 figures against published ones", "",
              f"- 22,897 solvable ordered chains (each of the 2^25 sequences solved on its own): "
              f"\"Snake Cube Solver\", professorguy.com/ideas/snakecube.html. The census: {s333['ordered_chains']} "
              f"ordered chains, {s333['palindromic_chains']} of them palindromic, so ({s333['ordered_chains']} + "
              f"{s333['palindromic_chains']}) / 2 = {s333['chains']} chains once a chain and its reverse are one.",
              f"- 4,960,608 directed Hamiltonian paths of the 3x3x3 grid, 2,480,304 undirected: lpetrich, "
              f"\"Cube Snake Puzzle\", Internet Infidels Discussion Board (iidb.org/threads/cube-snake-puzzle.23109). "
              f"The census: {directed} directed paths. That post's \"198,288 solutions to within rotations, "
              f"reflections and reversals\" is a different quantity: the sum, over its seven kinds of end-cell pairs, "
              f"of the paths between one pair of each kind (31,164 + 36,372 + ... + 22,240 = 198,288), not a count of "
              f"classes. The undirected paths up to the 48 isometries number {folds} (the \"foldings\" column: "
              f"({directed} + {reverse_fixed}) / 96 by Burnside's lemma, {reverse_fixed} counting the pairs (directed "
              f"path, isometry) where the isometry maps the path onto its own reverse); dividing naively, "
              f"{directed // 2} / 48 = {directed // 96}, would miss {folds - directed // 96} classes.",
              f"- Chains with exactly one folding: {unique_folds} of {s333['chains']}; the most foldings of one chain: "
              f"{s333['max_foldings']}.",
              "- O. B. (oscar6echo.blogspot.com/2012/09/snake-cube.html, 2012) enumerates the same paths by "
              "letter sequence with \"base\" paths up to rotation and reflection; its totals could not be read "
              "from the stored copy of the page, so they are not compared here.", ""]

    lines += ["## Cross-check with `cpsolve enumerate` on chain files", ""]
    check, n_bad = cross_check(20 if quick else 200, 5 if quick else 20)
    lines += check
    lines += ["", "(`tests/test_design.py` does the same for a few dozen chains of smaller boxes, and checks the "
              "census against a brute force with canonical forms for four boxes.)", ""]

    lines += ["## Sampling large boxes (`cpsolve design snake --box 4x4x4 --sample N`)", "",
              "Foldings are drawn by the backbite Markov chain (uniform over foldings in the limit, so a chain with "
              "k foldings is drawn k times as often as a unique one); each drawn chain is then folded in every way "
              "(the census search restricted to its sequence, stopping once it has more than one folding, "
              "at most 20 M search nodes per part before it is called undecided). On 3x3x3 the census says "
              f"what to expect: {unique_folds} of the {s333['chains']} chains have one folding, and {unique_folds} "
              f"of the {folds} foldings belong to such chains ({100 * unique_folds / folds:.0f} %).", "",
              "| box | chains drawn | exactly one folding | more | undecided | seconds | unique per hour | "
              "first unique (s) |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    lines.append(sample((3, 3, 3), 100 if quick else 1000, 60))
    lines.append(sample((4, 4, 4), 5 if quick else 400, 20 if quick else 240))
    lines += ["", "A 4x4x4 chain found this way is unique by the census search; the chain model cannot confirm it "
              "in reasonable time (`timeout 600 cpsolve enumerate FILE --workers 2` on the sat backend, FILE written "
              "by `--sample ... --puzzles DIR`, did not finish), so no 4x4x4 snake is a built-in model.", ""]

    lines += ["## Piece sets (`cpsolve design pieces`)", "",
              "Every multiset of pool pieces with the box's volume is a candidate; a piece that fits nowhere drops it "
              "before any search (\"pruned\"); the rest run on dlx and stop at the second solution class. "
              "Pieces are rigid (rotations only, mirror images are different pieces); `3a`, `3b` are the two "
              "tricubes, `4a`-`4h` the eight tetracubes (see `cpsolve/analysis/design/pieces.py`). "
              "2 workers; \"per second\" counts candidates (all, and those that reached the search).", "",
              "| demo | command | candidates | pruned | no solution | several | exactly one | seconds | per s | "
              "searched per s | first unique (s) |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    tt, _ = design.pool_from("tricubes,tetracubes")
    finds_333: list[design.Verdict] = []
    for copies in (1, 2) if quick else (1, 2, 3):
        row, finds = pieces_row(f"3x3x3, tricubes + tetracubes, <= {copies} of each",
                                f"cpsolve design pieces --box 3x3x3 --pool tricubes,tetracubes --copies {copies}",
                                [(3, 3, 3)], tt, copies, 2)
        lines.append(row)
        finds_333 += [f for f in finds if (f.box, f.pieces) not in {(g.box, g.pieces) for g in finds_333}]
    pent = design.pentominoes()
    volumes = range(10, 21, 5) if quick else range(10, 31, 5)
    boxes_p = design.boxes_of_volume(volumes)
    label = ",".join("x".join(map(str, b)) for b in boxes_p)
    row, finds_p = pieces_row(f"pentominoes (each at most once), every box of volume {volumes[0]}-{volumes[-1]}",
                              f"cpsolve design pieces --pool pentominoes --box {label}", boxes_p, pent, 1, 2)
    lines.append(row)
    per_box = Counter("x".join(map(str, v.box)) for v in finds_p)
    lines += ["", "Unique 3x3x3 sets found (pieces: total / up to rotation / up to rotation and reflection):", ""]
    lines += [f"- {', '.join(f'{k} x {n}' if k > 1 else n for n, k in v.pieces)}: {v.counts[0]} / {v.counts[1]} / "
              f"{v.counts[2]}" for v in finds_333 if v.counts]
    lines += ["", "Pentomino subsets that fill a box in exactly one way, per box: "
              + ", ".join(f"{b}: {k}" for b, k in sorted(per_box.items())) + ". None of the twelve-piece boxes "
              "(3x20, 4x15, 5x12, 6x10, 2x5x6, 2x3x10, 3x4x5) is unique: the smallest count is 3x20's 2 "
              "(C. B. and J. Haselgrove, 1960; `python -m pytest tests/test_design.py -k judge` checks that "
              "`design pieces` calls it \"several\").", ""]

    lines += unique_section()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    if n_bad:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
