"""Run inside GNU Backgammon (``gnubg -t -q -p bench/gnubg_driver.py``) by bench/strength.py,
which names two FIFOs in the environment: GNUBG_DRIVER_IN, each line of which is ``NOISE ROW;ROW;...``, a ROW being a fastnardy board row (50 counts,
the side to move's points 1-24 and bar, then the opponent's) and the two dice, comma
separated, and GNUBG_DRIVER_OUT, where the answer to each is one line ``@@MOVE;MOVE;...``, each MOVE gnubg's best move at 0 ply
(cubeless, deterministic noise NOISE) as from,to pairs in the mover's numbering (25 the bar,
0 off), empty for no legal move. Jacoby is off, so gammons and backgammons count (S9).
gnubg's stdin is left alone: with an open pipe there, each of its evaluations waits on it
(about 13 ms a move here, against under 1 ms)."""

import os

import gnubg  # noqa: F401  (gnubg's embedded module)

gnubg.command("set threads 1")  # one thread: no hand-off per call (7x faster here)
gnubg.command("set jacoby off")
gnubg.command("set player 0 human")
gnubg.command("set player 1 human")
gnubg.command("new game")
CUBE = gnubg.cubeinfo()

requests = open(os.environ["GNUBG_DRIVER_IN"])
answers_out = open(os.environ["GNUBG_DRIVER_OUT"], "w")
for line in requests:
    try:
        noise, request = line.split()
        context = {"cubeful": 0, "plies": 0, "deterministic": 1, "noise": float(noise),
                   "prune": 0}
        answers = []
        for item in request.split(";"):
            numbers = [int(x) for x in item.split(",")]
            row, dice = numbers[:50], numbers[50:52]
            board = [row[25:50], row[0:25]]  # gnubg: the side not on roll first
            move = gnubg.findbestmove(board, CUBE, context, tuple(dice))
            answers.append(",".join(map(str, move)))
        answers_out.write("@@" + ";".join(answers) + "\n")
    except Exception as error:  # the caller reports it and stops
        answers_out.write(f"@@error {type(error).__name__}: {error}\n".replace("\n", " ") + "\n")
    answers_out.flush()
