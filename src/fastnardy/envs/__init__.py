"""Environments for reinforcement learning: Gymnasium (:mod:`fastnardy.envs.gymnasium`),
PettingZoo (:mod:`fastnardy.envs.pettingzoo`), batched games in the kernel
(:mod:`fastnardy.envs.vector`), the step encoding (:mod:`fastnardy.envs.steps`) and both games
as OpenSpiel games (:mod:`fastnardy.envs.openspiel`). Each is imported on its own: its
library (Gymnasium, PettingZoo, OpenSpiel) is needed only by the module that adapts it."""
