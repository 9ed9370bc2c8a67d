"""Widen a fastnardy.search.network.Evaluator to more hidden units, its outputs unchanged.

The network's units are kept; each new unit gets input weights drawn from N(0, (1/2)^2 / F)
(F the inputs), bias 0 and output weights 0, so the widened network gives the same outputs
until a fit (``examples/train_teacher.py --init``) moves them. Its race network, if any, is
kept as it is. Deterministic for ``--seed`` (numpy's PCG64).

    python examples/widen_network.py long 256 /tmp/wide256.npz --seed 1
"""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional

import numpy as np

from fastnardy.search.network import Evaluator


def widen(net: Evaluator, hidden: int, rng: np.random.Generator) -> Evaluator:
    """``net`` with ``hidden`` units (at least its own): the new ones have zero weights out."""
    w1, b1 = net.hidden_weights, net.hidden_bias
    extra = hidden - len(b1)
    if extra < 0:
        raise ValueError(f"the network has {len(b1)} units: it cannot widen to {hidden}")
    w1 = np.concatenate([w1, rng.normal(0, 0.5 / np.sqrt(w1.shape[0]), (w1.shape[0], extra))],
                        axis=1)
    return Evaluator(net.kind, w1, np.concatenate([b1, np.zeros(extra)]),
                     np.concatenate([net.output_weights, np.zeros((extra, 5))]),
                     net.output_bias, dict(net.metadata, widened_to=hidden), race=net.race)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("network", help="long, short or an Evaluator's .npz")
    parser.add_argument("hidden", type=int, help="the units of the widened network")
    parser.add_argument("out", help="the .npz to write")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    net = Evaluator.load(args.network)
    try:
        wide = widen(net, args.hidden, np.random.default_rng(args.seed))
    except ValueError as exc:
        parser.error(str(exc))
    wide.save(args.out)
    print(f"wrote {args.out}: {len(net.hidden_bias)} units widened to {args.hidden}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
