"""Analysis as GNU Backgammon's users read it: hints, evaluations, the cube, rollouts of a
decision, analysed games and their HTML page.

Its modules: :mod:`~fastnardy.analysis.evaluation` (hint, eval), :mod:`~fastnardy.analysis.cube`
(the cube for money and matches), :mod:`~fastnardy.analysis.met` (match equity tables), :mod:`~fastnardy.analysis.review` (luck, analysed games),
:mod:`~fastnardy.analysis.rollouts` (rollouts with variance reduction),
:mod:`~fastnardy.analysis.page` (the HTML page) and :mod:`~fastnardy.analysis.outputs` (the
five outputs they all read). Their public names (``hint``,
``analyse`` …) are read from here."""

from ..search.network import flip as flip
from .cube import BEAROFF_EFFICIENCY as BEAROFF_EFFICIENCY
from .cube import CONTACT_EFFICIENCY as CONTACT_EFFICIENCY
from .cube import choose_cubeful as choose_cubeful
from .cube import Cube as Cube
from .cube import cube_action as cube_action
from .cube import cube_decision as cube_decision
from .cube import cube_equities as cube_equities
from .cube import CubeDecision as CubeDecision
from .cube import cubeful as cubeful
from .cube import cubeful_after as cubeful_after
from .cube import efficiencies as efficiencies
from .cube import efficiency as efficiency
from .cube import leaves as leaves
from .cube import model_met as model_met
from .cube import mwc_scale as mwc_scale
from .cube import OWNERS as OWNERS
from .cube import RACE_EFFICIENCY as RACE_EFFICIENCY
from .cube import shipped_met as shipped_met
from .evaluation import Candidate as Candidate
from .evaluation import evaluate as evaluate
from .evaluation import Evaluation as Evaluation
from .evaluation import hint as hint
from .evaluation import probabilities as probabilities
from .met import MatchEquityError as MatchEquityError
from .met import MatchEquityTable as MatchEquityTable
from .met import read_met as read_met
from .review import analyse as analyse
from .review import analyse_game as analyse_game
from .review import AnalysedTurn as AnalysedTurn
from .review import CANDIDATES as CANDIDATES
from .review import CLOSE_CUBE as CLOSE_CUBE
from .review import CUBE_ERRORS as CUBE_ERRORS
from .review import CUBE_PLAYS as CUBE_PLAYS
from .review import CubeReview as CubeReview
from .review import Analysis as Analysis
from .review import luck as luck
from .review import luck_mark as luck_mark
from .review import luck_rating as luck_rating
from .review import LUCK_RATINGS as LUCK_RATINGS
from .review import LUCK_MARKS as LUCK_MARKS
from .review import mark as mark
from .review import MARKS as MARKS
from .review import rating as rating
from .review import RATINGS as RATINGS
from .rollouts import cube_rollout as cube_rollout
from .rollouts import CubeRollout as CubeRollout
from .rollouts import dice_stream as dice_stream
from .rollouts import MAX_TURNS as MAX_TURNS
from .rollouts import RolledCandidate as RolledCandidate
from .rollouts import rollout as rollout
