"""Run inside GNU Backgammon (``gnubg -t -q -p .../fastnardy/data/gnubg_driver.py``) by
fastnardy.play.gnubg (``fastnardy match``, bench/strength/strength.py),
which names two FIFOs in the environment. Each line of GNUBG_DRIVER_IN is
``best NOISE PLIES ROW;ROW;...``, a ROW being a fastnardy board row (50 counts: the side to
move's points 1-24 and bar, then the opponent's) and the two dice, comma separated. The
answer, one line of GNUBG_DRIVER_OUT, is ``@@MOVE;MOVE;...``: each MOVE gnubg's best move at
PLIES plies (cubeless, deterministic noise NOISE, its own move filters) as from,to pairs in
the mover's numbering (25 the bar, 0 off), empty for no legal move; or ``@@error ...``. A
line ``evaluate PLIES ROW;ROW;...`` (ROWs of 50 counts, no dice) asks for gnubg's cubeless
evaluation of each row at PLIES plies for its side to move: the answer's items are its five
probabilities (win, win gammon, win backgammon, lose gammon, lose backgammon), comma
separated. A line ``cube PLIES ROW;ROW;...`` asks for gnubg's cube decision of each row at
PLIES plies, a ROW being 50 counts and the row's cube: VALUE, OWNER (-1 centred, 0 the side
to move, 1 the other), LENGTH (0 for money), the two scores (the side to move's first) and
CRAWFORD (0 or 1): the answer's items are its five probabilities at PLIES plies, then no
double, double take and double pass (normalised equity) and the recommendation's words. A
line ``move NOISE PLIES ROW;...`` (50 counts, the two dice and the cube's six numbers) asks
for gnubg's cubeful best move at PLIES plies under each row's cube, answered as the first
request is. Jacoby and beavers are off, so gammons and backgammons count (S9). The FIFOs
keep the answers apart from what gnubg itself prints."""

import os

import gnubg  # type: ignore[import-not-found]  # gnubg's embedded module

gnubg.command("set threads 1")  # one worker; each call still waits ~10 ms of wall time on
# gnubg's task queue, so fastnardy.play.gnubg.Gnubg asks several of these drivers at once
gnubg.command("set jacoby off")
gnubg.command("set beavers 0")
gnubg.command("set player 0 human")
gnubg.command("set player 1 human")
gnubg.command("new game")
CUBE = gnubg.cubeinfo()


def cubeinfo(numbers: list[int]) -> object:
    """gnubg's cube of VALUE, OWNER, LENGTH, the two scores and CRAWFORD."""
    value, owner, length, mine, theirs, crawford = numbers
    return gnubg.cubeinfo(value, owner, 0, length, (mine, theirs), crawford, 0)


def board(row: list[int]) -> list[list[int]]:
    """gnubg's board of a row: the side not on roll first."""
    return [row[25:50], row[0:25]]


requests = open(os.environ["GNUBG_DRIVER_IN"])
answers_out = open(os.environ["GNUBG_DRIVER_OUT"], "w")
for line in requests:
    try:
        words = line.split()
        answers = []
        if words[0] == "cube":
            context = {"cubeful": 1, "plies": int(words[1]), "deterministic": 1,
                       "noise": 0.0, "prune": 0}
            for item in words[2].split(";"):
                numbers = [int(x) for x in item.split(",")]
                row, cube = numbers[:50], cubeinfo(numbers[50:56])
                outputs = gnubg.evaluate(board(row), cube, context)[:5]
                decision = gnubg.cfevaluate(board(row), cube, context)
                answers.append(",".join([repr(p) for p in outputs]
                                        + [repr(e) for e in decision[1:4]] + [decision[5]]))
        elif words[0] == "move":
            context = {"cubeful": 1, "plies": int(words[2]), "deterministic": 1,
                       "noise": float(words[1]), "prune": 0}
            for item in words[3].split(";"):
                numbers = [int(x) for x in item.split(",")]
                row, dice, cube = numbers[:50], numbers[50:52], cubeinfo(numbers[52:58])
                move = gnubg.findbestmove(board(row), cube, context, tuple(dice))
                answers.append(",".join(map(str, move)))
        elif words[0] == "evaluate":
            context = {"cubeful": 0, "plies": int(words[1]), "deterministic": 1,
                       "noise": 0.0, "prune": 0}
            for item in words[2].split(";"):
                row = [int(x) for x in item.split(",")]
                answers.append(",".join(repr(p) for p in
                                        gnubg.evaluate(board(row), CUBE, context)[:5]))
        elif words[0] == "best":
            context = {"cubeful": 0, "plies": int(words[2]), "deterministic": 1,
                       "noise": float(words[1]), "prune": 0}
            for item in words[3].split(";"):
                numbers = [int(x) for x in item.split(",")]
                row, dice = numbers[:50], numbers[50:52]
                move = gnubg.findbestmove(board(row), CUBE, context, tuple(dice))
                answers.append(",".join(map(str, move)))
        else:
            raise ValueError(f"unknown request {words[0]!r}")
        answers_out.write("@@" + ";".join(answers) + "\n")
    except Exception as error:  # the caller reports it and stops
        message = f"{type(error).__name__}: {error}".replace("\n", " ")
        answers_out.write(f"@@error {message}\n")
    answers_out.flush()
