"""Train a fastnardy.search.network.Evaluator on a teacher's evaluations (supervised, in numpy).

The teacher is GNU Backgammon (``--teacher gnubg``, short nardy: Debian's ``gnubg``,
headless), bgsage (``--teacher bgsage``, short nardy: ``pip install bgsage``, in this
process) or an Evaluator (``--teacher long``, ``short`` or a ``.npz``) searched one ply
deeper than it plays. Three stages, the first two cached in ``--data`` (an ``.npz``; a later
run with the same file skips them):

1. *Positions.* ``--parallel`` games at a time are played by ``--policy`` (an Evaluator, the
   game's shipped net by default, at 0 ply), each turn's choice made uniformly at random
   instead with probability ``--explore``. Of each turn's children (the positions the
   policy compares: the next mover's view, finished games left out), the ``--top`` best by
   the policy are kept and ``--per-turn`` more drawn at random (with ``--race``, of the
   races only, ``fastnardy.search.network.races``; with ``--contact``, of the other positions
   only; with ``--crashed``, of short nardy's crashed boards only,
   ``fastnardy.search.network.crashes``); the rows are then made distinct. With ``--from
   FILE`` (repeatable: earlier runs' ``--data``) the positions are instead those files' rows
   of the run's kind, or with ``--walk N`` the new ones reached in N turns from them (each
   turn the policy's choice and one child drawn at random; ``--positions`` of them kept).
   With ``--rank`` the rows kept of each turn stay together, turn after turn (not made
   distinct), and the data file records each one's turn.
2. *Labels.* Each row's five outputs (``fastnardy.search.network.OUTPUTS``) for its side to
   move, by :func:`fastnardy.training.labels.labels` with the teacher's evaluation setting
   (:class:`fastnardy.search.setting.Setting`, :func:`teacher_setting`): gnubg's cubeless
   evaluation at ``--plies`` plies (``gnubg:expert:P``; money game without Jacoby: gammons
   and backgammons count, S9), bgsage's at ``--plies`` 0 to 3 in fastnardy's count
   (``bgsage:P``: 0 its raw network, its "1ply"; 1 its "2ply"; money game without Jacoby,
   gammons where still possible; about 60,000 rows a CPU second at 0 ply and 500 at 1 ply,
   one thread of its own a worker), or an Evaluator's at ``--plies 1`` (the mean over the 21
   rolls, T5, of the teacher's outputs of the child it would play, the first best in T2
   order; a finished game's exact outputs, L10/S9), ``--plies 2`` (the mean over the 21
   rolls of the 1-ply labels of the child it would play at 1 ply among the ``--filter KEEP
   MARGIN`` best at 0 ply, or among all without ``--filter``: full width, not the
   setting's default GNU Backgammon filters; its equity is the 2-ply expectimax) or
   ``--plies 0`` (its own outputs).
   On ``--workers`` threads here (a gnubg process each) or on the Dask cluster at ``--dask
   ADDRESS``: the same labels however they are split; Ctrl-C stops every piece, on the
   cluster too.
3. *Fit.* One hidden layer of ``--hidden`` sigmoid units on the game's inputs
   (``tdgammon`` short, ``nardy`` long; ``--inputs shots`` for short nardy's with eight
   contact inputs, :mod:`fastnardy.search.inputs`; ``--attach``'s by default), five
   sigmoid outputs, Adam on the cross-entropy of each output against the teacher's,
   ``--epochs`` passes in minibatches, the rate falling linearly to a tenth; ``--holdout``
   of the rows (drawn by the seed) are never learnt and report the mean absolute error of
   the equity after each pass. ``--rank W`` adds W times the divergence of the network's
   order of each turn's siblings from the teacher's (a softmax of minus their equities over
   ``--tau`` points): what a 0-ply player reads of its network is that order. Its
   minibatches and holdout are whole turns, and each pass also reports the teacher's equity
   a held-out turn loses by the network's first best. The weights are written to
   ``--out`` after each pass (``Evaluator.load(path)`` reads them); the metadata records
   the command, seed, rows and CPU seconds (this process's and gnubg's).

``--extra FILE`` (repeatable) adds the labelled rows of another run's ``--data`` to the fit;
every file must have been labelled by the same teacher at the same depth, of the same
positions (all, races, contact or crashed: each records them), or the run stops.
``--extra-by TEACHER FILE`` (repeatable) adds one labelled by another teacher, named as its
run named it, at the same depth and filter (the metadata lists those teachers).
``--attach FILE`` writes to ``--out`` the Evaluator of ``FILE`` with the fitted network as
its race network (a ``--race`` run) or its crashed network (``--crashed``), or as the
network beside ``FILE``'s race and crashed networks (a ``--contact`` run; a tdgammon race
network beside a shots network gets weights of 0 on the inputs it lacks, which leaves its
values as they were); ``--init FILE`` starts a ``--race`` or ``--crashed`` fit from that
network of ``FILE``'s where it has one.
A run is deterministic for its arguments (numpy's PCG64 for the games, the holdout and the
minibatches; gnubg is deterministic; BLAS on one thread).

    python examples/train_teacher.py --game short --teacher gnubg --positions 20000 \\
        --data /tmp/g.npz --out /tmp/short.npz
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")  # before numpy: one core, the same sums every run

import argparse  # noqa: E402
import contextlib  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from typing import Callable, List, Optional, Tuple  # noqa: E402

import numpy as np  # noqa: E402

from fastnardy import FastNardyError, Rules, features  # noqa: E402
from fastnardy.batch import expand, keys_from_rows, segment_argmax  # noqa: E402
from fastnardy.cli.options import dask_executor  # noqa: E402
from fastnardy.search.inputs import ENCODINGS, WIDTHS  # noqa: E402
from fastnardy.search.network import OUTPUTS, Evaluator, crashes, equity, races  # noqa: E402
from fastnardy.search.setting import BGSAGE_PLIES, GNUBG_PLIES, Setting  # noqa: E402
from fastnardy.search.tree import MoveFilter  # noqa: E402
from fastnardy.training.labels import labels  # noqa: E402

from train_td import (HALF, KINDS, Adam, _start_row, first_best, launch,  # noqa: E402
                      new_network, roll, step)

GNUBG_WORKERS = 32  # gnubg processes at once by default (its calls mostly wait: not CPU)
EVALUATOR_PLIES = 2  # an Evaluator's deepest labels here (--filter: its 2-ply labels')


def _ranks(score: np.ndarray, parent: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Each child's rank by ``score`` (ascending) among its siblings."""
    order = np.lexsort((score, parent))
    rank = np.empty(len(score), dtype=np.int64)
    rank[order] = np.arange(len(score)) - offsets[parent[order]]
    return rank


def gather(args: argparse.Namespace, rng: np.random.Generator
           ) -> Tuple[np.ndarray, Optional[np.ndarray]]:
    """Distinct child rows of games played by the policy (stage 1); with ``--rank``, the
    rows kept of each turn together instead (siblings, in turn order, a row again wherever
    it is kept) and each one's turn (0, 1, ...), else None."""
    rules = Rules.of(args.game)
    policy = Evaluator.load(args.policy or args.game)
    start = _start_row(KINDS[args.game])
    n = args.parallel
    rows = np.repeat(start[None], n, axis=0)
    plies = np.zeros(n, dtype=np.int64)
    kept: List[np.ndarray] = []
    turns: List[np.ndarray] = []
    total = 0
    while total < args.positions:
        dice = roll(rng, n, plies == 0, args.game == "short")
        children, parent = expand(rules, rows, dice)
        values = -policy.evaluate(children)
        won = children[:, HALF:].sum(axis=1) == 0  # the mover bore off its 15th (L9, S9)
        values[won] = 1e9  # a finished game is chosen; it is never kept
        choice = first_best(values, parent, n)
        offsets = np.searchsorted(parent, np.arange(n + 1))
        counts = np.diff(offsets)
        wild = rng.random(n) < args.explore
        choice[wild] = offsets[:-1][wild] + (rng.random(int(wild.sum())) * counts[wild]).astype(
            np.int64)
        drawn = _ranks(rng.random(len(children)), parent, offsets)
        best = _ranks(-values, parent, offsets)
        keep = ((drawn < args.per_turn) | (best < args.top)) & _kept(args, rules, children)
        kept.append(children[keep])
        turns.append(n * len(turns) + parent[keep])
        total += int(keep.sum())
        rows = children[choice]
        plies += 1
        over = won[choice] | (plies >= 2000)
        rows[over] = start
        plies[over] = 0
    if args.rank:
        return np.concatenate(kept), np.unique(np.concatenate(turns), return_inverse=True)[1]
    distinct = np.unique(np.concatenate(kept), axis=0)
    return distinct[rng.permutation(len(distinct))], None


def walked(args: argparse.Namespace, rng: np.random.Generator) -> np.ndarray:
    """Stage 1 from the rows of earlier runs' data files (``--from``): those of the run's
    positions, each once (its first, in file order); with ``--walk N``, the rows reached from
    them instead. A step rolls once for each row (doubles too: no opening), keeps the
    policy's 0-ply choice (the first best) and one child drawn uniformly, and of those the
    run's positions, made distinct, from which the next step starts. The rows reached, not
    among the start's, are shuffled and the first ``--positions`` kept."""
    rules = Rules.of(args.game)
    rows = []
    for path in args.start:
        with np.load(path) as data:
            rows.append(data["rows"])
    start = np.concatenate(rows)
    start = start[_kept(args, rules, start)]
    start = start[np.sort(np.unique(start, axis=0, return_index=True)[1])]
    if not args.walk:
        return start
    policy = Evaluator.load(args.policy or args.game)
    front, reached = start, [start[:0]]
    for _ in range(args.walk):
        if not len(front):
            break
        dice = rng.integers(1, 7, size=(len(front), 2)).astype(np.int8)
        children, parent = expand(rules, front, dice)
        offsets = np.searchsorted(parent, np.arange(len(front) + 1))
        best = first_best(-policy.evaluate(children), parent, len(front))
        drawn = offsets[:-1] + (rng.random(len(front)) * np.diff(offsets)).astype(np.int64)
        picked = children[np.unique(np.concatenate([best, drawn]))]
        front = np.unique(picked[_kept(args, rules, picked)], axis=0)
        reached.append(front)
    found = np.unique(np.concatenate(reached), axis=0)
    found = found[~np.isin(keys_from_rows(rules, found), keys_from_rows(rules, start))]
    rng.shuffle(found)
    return found[:args.positions]


def _kept(args: argparse.Namespace, rules: Rules, rows: np.ndarray) -> np.ndarray:
    """Which of the next mover's ``rows`` are of the run's positions (all, races, contact,
    crashed); a finished game (the side that moved bore off its 15th, L9/S9) never is."""
    keep = rows[:, HALF:].sum(axis=1) > 0
    if args.race or args.contact:
        keep &= races(rules, rows) == args.race
    elif args.crashed:
        keep &= crashes(rules, rows)
    return keep


def teacher_setting(args: argparse.Namespace) -> Setting:
    """The teacher's evaluation setting: ``gnubg:expert`` or ``bgsage`` at ``--plies``, or
    the Evaluator ``--teacher`` at ``--plies`` with ``--filter``'s move filter at every
    level, full width (``filter=None``) without it."""
    if args.teacher == "gnubg":
        return Setting("gnubg:expert", args.plies)
    if args.teacher == "bgsage":
        return Setting("bgsage", args.plies)
    return Setting(Evaluator.load(args.teacher), args.plies, filter=args.filter)


def labelled(args: argparse.Namespace, rows: np.ndarray) -> Tuple[np.ndarray, float]:
    """The teacher's five outputs of each row (stage 2,
    :func:`fastnardy.training.labels.labels` with :func:`teacher_setting`) and the CPU
    seconds of the gnubg processes run here: on ``--workers`` threads here (a gnubg process
    each) or on the Dask cluster at ``--dask``, the same labels either way."""
    setting = teacher_setting(args)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    shown = [0]

    def progress(done: int, total: int) -> None:
        if done == total or done >= shown[0] + total // 10:  # about every tenth
            shown[0] = done
            print(f"labels {done:9d} / {total}  {time.monotonic() - started:6.0f} s", flush=True)

    with contextlib.ExitStack() as stack:
        executor = None if args.dask is None else stack.enter_context(dask_executor(args.dask))
        workers = None if executor is not None else args.workers or (
            GNUBG_WORKERS if args.teacher == "gnubg" else 1)
        targets = labels(args.game, rows, setting, workers=workers, executor=executor,
                         progress=progress)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return targets, seconds


def fit(args: argparse.Namespace, rng: np.random.Generator, x: np.ndarray, y: np.ndarray,
        turn: Optional[np.ndarray], save: Callable[[Evaluator, int, float], None]
        ) -> Evaluator:
    """Adam on the cross-entropy (stage 3), with ``--rank`` plus the siblings' term (``turn``:
    each row's; whole turns in a minibatch, whole turns held out: :func:`ranked`);
    ``save(net, epoch, holdout error)`` after each pass."""
    net = Evaluator.load(args.init) if args.init else new_network(args.inputs, args.hidden, rng)
    part = _part(args)  # a race or crashed fit: from that network of --init's, if it has one
    if part and getattr(net, part) is not None:
        net = getattr(net, part)
    params = [net.hidden_weights.copy(), net.hidden_bias.copy(), net.output_weights.copy(),
              net.output_bias.copy()]
    targets = y.astype(np.float32)
    adam = Adam(params, args.rate)
    if turn is not None:
        return ranked(args, rng, x, targets, turn, params, adam, save)
    held = np.zeros(len(x), dtype=bool)
    held[rng.permutation(len(x))[:int(args.holdout * len(x))]] = True
    learnt = np.flatnonzero(~held)  # indices, not a copy of the rows: x may be gigabytes
    batches = -(-len(learnt) // args.minibatch)
    for epoch in range(1, args.epochs + 1):
        order = learnt[rng.permutation(len(learnt))]
        total = 0.0
        for b in range(batches):
            adam.rate = _rate(args, epoch, b, batches)
            pick = order[b * args.minibatch:(b + 1) * args.minibatch]
            total += step(params, adam, x[pick], targets[pick])
        net = Evaluator(args.inputs, *params)
        error = float(np.abs(equity(net.probabilities(x[held])) - equity(y[held])).mean())
        print(f"epoch {epoch:3d}  loss {total / (len(learnt) * len(OUTPUTS)):.5f}  "
              f"holdout equity error {error:.4f}  cpu {time.process_time():7.1f}s", flush=True)
        save(net, epoch, error)
    return net


def ranked(args: argparse.Namespace, rng: np.random.Generator, x: np.ndarray,
           targets: np.ndarray, turn: np.ndarray, params: List[np.ndarray], adam: Adam,
           save: Callable[[Evaluator, int, float], None]) -> Evaluator:
    """fit with ``--rank``: each minibatch whole turns of about ``--minibatch`` rows, its
    loss the cross-entropy plus ``--rank`` times the mean over its turns of the
    Kullback-Leibler divergence of the network's choice from the teacher's, each a softmax
    over the siblings of minus their equity (the next mover's) over ``--tau``: a term on
    the order of the siblings, which is what a 0-ply player reads of its network.
    ``--holdout`` of the turns are never learnt; after each pass, their equity error and
    the teacher's equity a turn lost by the network's first best."""
    turns = int(turn[-1]) + 1
    first = np.searchsorted(turn, np.arange(turns + 1))  # each turn's first row
    teacher = equity(targets)
    held = np.zeros(turns, dtype=bool)
    held[rng.permutation(turns)[:int(args.holdout * turns)]] = True
    learnt = np.flatnonzero(~held)
    shown, starts = rows_of(first, np.flatnonzero(held))
    bounds = np.append(starts, len(shown))
    net = None
    for epoch in range(1, args.epochs + 1):
        order = learnt[rng.permutation(len(learnt))]
        # a turn goes to the minibatch in which its last row falls
        batch = (np.cumsum(first[order + 1] - first[order]) - 1) // args.minibatch
        cuts = np.flatnonzero(np.diff(batch)) + 1
        total = 0.0
        for b, picked in enumerate(np.split(order, cuts)):
            adam.rate = _rate(args, epoch, b, len(cuts) + 1)
            rows, siblings = rows_of(first, picked)
            total += step(params, adam, x[rows], targets[rows],
                          lambda out: order_term(out, teacher[rows], siblings, args))
        net = Evaluator(args.inputs, *params)
        values = equity(net.probabilities(x[shown]))
        error = float(np.abs(values - teacher[shown]).mean())
        chosen = starts + segment_argmax(-values, bounds)
        best = np.minimum.reduceat(teacher[shown], starts)
        lost = float((teacher[shown][chosen] - best).mean())
        print(f"epoch {epoch:3d}  loss {total / ((len(turn) - len(shown)) * len(OUTPUTS)):.5f}  "
              f"holdout equity error {error:.4f}  lost a turn {lost:.5f}  "
              f"cpu {time.process_time():7.1f}s", flush=True)
        save(net, epoch, error)
    assert net is not None
    return net


def rows_of(first: np.ndarray, turns: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """The rows of the ``turns`` (``first``: each turn's first row), turn after turn, and
    where each turn starts among them."""
    sizes = first[turns + 1] - first[turns]
    starts = np.cumsum(sizes) - sizes
    return np.repeat(first[turns] - starts, sizes) + np.arange(sizes.sum()), starts


def _rate(args: argparse.Namespace, epoch: int, batch: int, batches: int) -> float:
    """Adam's rate for minibatch ``batch`` of ``batches`` in pass ``epoch`` (from 1):
    ``--rate`` falling linearly to a tenth over the fit."""
    return float(args.rate * (1 - 0.9 * ((epoch - 1) * batches + batch)
                              / (args.epochs * batches)))


def order_term(out: np.ndarray, teacher: np.ndarray, starts: np.ndarray,
               args: argparse.Namespace) -> np.ndarray:
    """The gradient, with respect to the outputs' sums, of ``--rank`` times the mean over
    the turns (``starts``: each one's first row) of KL(teacher's softmax || the network's),
    each a softmax of minus the siblings' equities (``out``'s, ``teacher``) over ``--tau``."""
    def softmax(values: np.ndarray) -> np.ndarray:
        z = -values / args.tau
        e = np.exp(z - np.repeat(np.maximum.reduceat(z, starts), sizes))
        return e / np.repeat(np.add.reduceat(e, starts), sizes)

    sizes = np.diff(np.append(starts, len(out)))
    d_equity = -(softmax(equity(out)) - softmax(teacher)) / args.tau  # d KL / d equity
    points = equity(np.eye(len(OUTPUTS))) + 1.0  # equity = out . points - 1
    return (args.rank / len(starts) * d_equity[:, None] * points * out * (1 - out)
            ).astype(np.float32)


def cached(path: str, args: argparse.Namespace, teacher: Optional[str] = None
           ) -> Tuple[np.ndarray, np.ndarray, float, Optional[np.ndarray]]:
    """The labelled rows of a ``--data`` file, their targets, gnubg's CPU seconds and, for
    ``--rank``, each row's turn; exits when another teacher than ``teacher`` (``--teacher``
    unless given) or another depth labelled them, or other positions (all, races, contact,
    crashed: the metadata names each; a file without ``race``, ``contact`` or ``crashed``
    is not of those), or when ``--rank`` finds no turns (a run without ``--rank`` made the
    rows distinct)."""
    with np.load(path) as data:
        made = (str(data["teacher"]), int(data["plies"]),
                str(data["filter"]) if "filter" in data.files else "", _positions(
                    *(bool(data[key]) if key in data.files else False for key in _KEPT)))
        wanted = (teacher or args.teacher, args.plies, _filter_text(args),
                  _positions(args.race, args.contact, args.crashed))
        if made != wanted:
            sys.exit(f"train_teacher.py: {path} was labelled by {made[0]} at {made[1]} "
                     f"plies{made[2]} ({made[3]}), not {wanted[0]} at {wanted[1]}{wanted[2]} "
                     f"({wanted[3]})")
        if args.rank and "turn" not in data.files:
            sys.exit(f"train_teacher.py: {path} holds no turns: --rank learns from the "
                     f"data of a --rank run")
        return (data["rows"], data["targets"], float(data["gnubg_seconds"]),
                data["turn"] if args.rank else None)


_KEPT = ("race", "contact", "crashed")  # the flags of the positions a run keeps


def _filter_text(args: argparse.Namespace) -> str:
    """How the data file and the messages name ``--filter`` ("" without it)."""
    given = args.filter
    return "" if given is None else f" with --filter {given.keep} {given.margin}"


def _positions(race: bool, contact: bool, crashed: bool) -> str:
    """The positions a run keeps, as its data file records them and its messages name them."""
    return ("races" if race else "contact" if contact else "crashed" if crashed
            else "all positions")


def _part(args: argparse.Namespace) -> Optional[str]:
    """The network of --attach's that the fit is (race, crashed), or None: its own."""
    return "race" if args.race else "crashed" if args.crashed else None


def train(args: argparse.Namespace, command: str) -> Evaluator:
    rules = Rules.of(args.game)
    rng = np.random.default_rng(args.seed)
    if args.data and os.path.exists(args.data):
        rows, targets, gnubg_seconds, turn = cached(args.data, args)
        print(f"{len(rows)} labelled rows from {args.data}", flush=True)
    else:
        rows, turn = (walked(args, rng), None) if args.start else gather(args, rng)
        print(f"{len(rows)} {'rows of turns' if args.rank else 'distinct rows'}, cpu "
              f"{time.process_time():.1f}s", flush=True)
        targets, gnubg_seconds = labelled(args, rows)
        if args.data:
            np.savez(args.data, rows=rows, targets=targets, gnubg_seconds=gnubg_seconds,
                     teacher=args.teacher, plies=args.plies, filter=_filter_text(args),
                     **{key: getattr(args, key) for key in _KEPT},
                     **({} if turn is None else {"turn": turn}))
    for teacher, extra in [(None, path) for path in args.extra] + args.extra_by:
        more, more_targets, seconds, more_turn = cached(extra, args, teacher)
        rows = np.concatenate([rows, more])
        targets = np.concatenate([targets, more_targets])
        if turn is not None and more_turn is not None:  # the next file's turns after these
            turn = np.concatenate([turn, more_turn + turn[-1] + 1])
        gnubg_seconds += seconds
        print(f"{len(rows)} labelled rows with {extra}", flush=True)
    x = features(rules, rows, args.inputs)
    other = args.attached

    def save(net: Evaluator, epoch: int, error: float) -> None:
        net.metadata = {
            "game": args.game, "variants": rules.variants(), "kind": args.inputs,
            "teacher": args.teacher, "plies": args.plies, "rows": len(rows),
            **({"filter": list(args.filter)} if args.filter else {}),
            "seed": args.seed, "epochs": epoch, "holdout_equity_error": round(error, 5),
            "cpu_seconds": round(time.process_time(), 1),
            "gnubg_cpu_seconds": round(gnubg_seconds, 1), "hidden": len(net.hidden_bias),
            "command": command, "numpy": np.__version__, "outputs": list(OUTPUTS),
            **({"rank": args.rank, "tau": args.tau} if args.rank else {}),
            **({"extra_teachers": [teacher for teacher, _ in args.extra_by]}
               if args.extra_by else {}),
            **{key: getattr(args, key) for key in _KEPT}}
        if other is not None:  # the fit in its place among --attach's networks
            part = _part(args)
            main = other if part else net
            beside = {name: padded(net if name == part else getattr(other, name), main.kind)
                      for name in ("race", "crashed")}
            net = Evaluator(main.kind, main.hidden_weights, main.hidden_bias,
                            main.output_weights, main.output_bias, main.metadata, **beside)
        net.save(args.out)

    return fit(args, rng, x, targets, turn, save)


def padded(part: Optional[Evaluator], kind: str) -> Optional[Evaluator]:
    """A race or crashed network ``part`` beside one of ``kind``: a tdgammon one as a shots
    one, its weights on the eight contact inputs 0 (the same values)."""
    if part is None or part.kind == kind:
        return part
    if (part.kind, kind) != ("tdgammon", "shots"):
        sys.exit(f"train_teacher.py: a {part.kind} network cannot serve beside a {kind} one")
    hidden = len(part.hidden_bias)
    extra = WIDTHS[kind] - WIDTHS[part.kind]
    return Evaluator(kind, np.vstack([part.hidden_weights, np.zeros((extra, hidden))]),
                     part.hidden_bias, part.output_weights, part.output_bias, part.metadata)


def parse(argv: Optional[List[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(KINDS), required=True)
    parser.add_argument("--teacher", required=True,
                        help="gnubg or bgsage (short), or an Evaluator: long, short or "
                             "a .npz")
    parser.add_argument("--out", required=True, help="the .npz to write after each pass")
    parser.add_argument("--data", help="an .npz caching the labelled rows (stages 1-2)")
    parser.add_argument("--extra", action="append", default=[],
                        help="another --data file whose rows are learnt too (repeatable)")
    parser.add_argument("--extra-by", nargs=2, action="append", default=[],
                        metavar=("TEACHER", "FILE"),
                        help="a --data file labelled by another TEACHER at the same plies, "
                             "learnt too (repeatable)")
    parser.add_argument("--positions", type=int, default=200000,
                        help="children kept before they are made distinct (a --walk: "
                             "the most rows kept)")
    parser.add_argument("--policy", help="the Evaluator that plays (default: the game's)")
    parser.add_argument("--race", action="store_true", help="keep the races only")
    parser.add_argument("--contact", action="store_true", help="keep the non-races only")
    parser.add_argument("--crashed", action="store_true",
                        help="keep short nardy's crashed boards only")
    parser.add_argument("--attach", help="write the fit with this .npz: as its race network "
                        "(--race) or crashed one (--crashed), or beside them")
    parser.add_argument("--from", action="append", default=[], dest="start", metavar="FILE",
                        help="stage 1 from the rows of these --data files, not games "
                             "(repeatable)")
    parser.add_argument("--walk", type=int, default=0,
                        help="with --from: the rows reached in this many turns from them")
    parser.add_argument("--explore", type=float, default=0.1)
    parser.add_argument("--per-turn", type=int, default=4, help="children drawn a turn")
    parser.add_argument("--top", type=int, default=0, help="the policy's best children kept")
    parser.add_argument("--parallel", type=int, default=256, help="games played at once")
    parser.add_argument("--plies", type=int, default=0,
                        help="the teacher's plies (gnubg: 0 to 4, bgsage: 0 to 3, an "
                             "Evaluator: 0 to 2)")
    parser.add_argument("--filter", type=float, nargs=2, metavar=("KEEP", "MARGIN"),
                        help="an Evaluator's 2-ply labels: its best turn of each roll at 1 "
                             "ply among the KEEP best within MARGIN points at 0 ply")
    parser.add_argument("--workers", "--gnubg", type=int, dest="workers",
                        help=f"labelling threads here, a gnubg process each (default "
                             f"{GNUBG_WORKERS} for gnubg, 1 for bgsage or an Evaluator)")
    parser.add_argument("--dask", metavar="ADDRESS",
                        help="label on the Dask cluster of this scheduler (the same labels; "
                             "its workers need gnubg or bgsage for theirs)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hidden", type=int, default=80)
    parser.add_argument("--inputs", help="the network's inputs (fastnardy.search.inputs): "
                        "--attach's, or the game's (tdgammon, nardy) by default; or shots "
                        "(short)")
    parser.add_argument("--init", help="start from this .npz")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--rate", type=float, default=3e-3, help="Adam's first rate")
    parser.add_argument("--minibatch", type=int, default=256)
    parser.add_argument("--holdout", type=float, default=0.05)
    parser.add_argument("--rank", type=float, default=0.0,
                        help="keep each turn's rows together and learn their order too, "
                             "with this weight (fit)")
    parser.add_argument("--tau", type=float, default=0.05,
                        help="with --rank: the softmax's temperature, in points")
    args = parser.parse_args(argv)
    if args.top < 0 or min(args.positions, args.per_turn, args.parallel, args.hidden,
           args.epochs, args.minibatch, args.workers or 1) < 1 or not 0 <= args.explore <= 1 \
            or args.plies < 0:
        parser.error("counts must be positive (--top >= 0), --explore in [0, 1], --plies >= 0")
    if args.rank < 0 or args.tau <= 0 or (args.rank and args.start):
        parser.error("--rank >= 0 learns from the turns of games (not --from) at --tau > 0")
    if args.walk < 0 or (args.walk and not args.start):
        parser.error("--walk counts the turns walked from the rows of --from: give both")
    for path in args.start:
        try:
            with np.load(path) as data:
                has_rows = "rows" in data.files
        except (OSError, ValueError):
            has_rows = False
        if not has_rows:
            parser.error(f"--from {path}: not a --data file (no rows)")
    if args.teacher == "gnubg" and (args.game != "short" or args.plies > GNUBG_PLIES):
        parser.error(f"GNU Backgammon teaches short nardy only, at 0 to {GNUBG_PLIES} plies")
    if args.teacher == "bgsage" and (args.game != "short" or args.plies > BGSAGE_PLIES):
        parser.error(f"bgsage teaches short nardy only, at 0 to {BGSAGE_PLIES} plies")
    if args.teacher not in ("gnubg", "bgsage") and args.plies > EVALUATOR_PLIES:
        parser.error(f"an Evaluator teaches at 0 to {EVALUATOR_PLIES} plies")
    if args.filter is not None and (args.teacher in ("gnubg", "bgsage") or args.plies != 2
                                    or args.filter[0] < 1 or args.filter[0] % 1
                                    or not args.filter[1] >= 0):
        parser.error("--filter KEEP MARGIN (KEEP a whole number >= 1, MARGIN >= 0) is for "
                     "an Evaluator's 2-ply labels")
    if args.filter is not None:  # the move filter of 2-ply labels; None: full width
        args.filter = MoveFilter(int(args.filter[0]), args.filter[1])
    if args.race + args.contact + args.crashed > 1:
        parser.error("--race, --contact and --crashed keep positions apart: give one")
    if args.crashed and args.game != "short":
        parser.error("--crashed keeps short nardy's crashed boards")
    # --attach's network, read once: the fit is its race or crashed network or goes beside
    try:
        args.attached = Evaluator.load(args.attach) if args.attach else None
    except FastNardyError as error:
        parser.error(str(error))
    if args.inputs is None:  # --attach's inputs
        args.inputs = args.attached.kind if args.attached else KINDS[args.game]
    if ENCODINGS.get(args.inputs) != args.game:
        parser.error(f"--inputs {args.inputs} are not {args.game} nardy's")
    if args.workers is not None and args.dask is not None:
        parser.error("label with --workers here or on --dask, not both")
    return args


def main(argv: Optional[List[str]] = None) -> int:
    return launch("train_teacher.py", argv, parse, train, "rows")


if __name__ == "__main__":
    sys.exit(main())
