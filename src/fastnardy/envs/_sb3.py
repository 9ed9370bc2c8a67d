"""stable-baselines3's ``VecEnv`` over :class:`fastnardy.envs.gymnasium.NardyVectorEnv`
(imported by ``NardyVectorEnv.sb3()`` only: stable-baselines3 is not a dependency)."""

from __future__ import annotations

from typing import Any, Dict, List

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from ..errors import FastNardyError


class NardyVecEnv(VecEnv):
    """The games of a NardyVectorEnv as SB3 sees them (see ``NardyVectorEnv.sb3``)."""

    def __init__(self, env: Any) -> None:
        self.env = env  # read by VecEnv's constructor (render_mode)
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)
        self._actions: Any = None

    def reset(self) -> np.ndarray:
        observation: np.ndarray = self.env.reset(seed=self._seeds[0])[0]
        self._reset_seeds()
        return observation

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> Any:
        observation, rewards, terminated, truncated, infos = self.env.step(self._actions)
        out: List[Dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if "final_obs" in infos:
            for i in np.flatnonzero(infos["_final_obs"]):
                out[i]["terminal_observation"] = infos["final_obs"][i]
                out[i]["TimeLimit.truncated"] = bool(truncated[i])
        return observation, rewards.astype(np.float32), terminated | truncated, out

    def close(self) -> None:
        """Nothing to release."""

    def get_attr(self, attr_name: str, indices: Any = None) -> List[Any]:
        return [getattr(self.env, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise FastNardyError("the games of a NardyVectorEnv share their attributes: set "
                             "them on the NardyVectorEnv")

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None,
                   **method_kwargs: Any) -> List[Any]:
        chosen = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.env.action_masks()
            return [masks[i] for i in chosen]
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result for _ in chosen]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> List[bool]:
        return [False for _ in self._get_indices(indices)]
