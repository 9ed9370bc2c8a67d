"""Analysis as GNU Backgammon's users read it: hints, evaluations, the cube, rollouts of a
decision, analysed games and their HTML page.

The names of the old module ``fastnardy.analysis`` (``hint``, ``analyse`` …) are read from
here as before."""

from .review import CONTACT_EFFICIENCY as CONTACT_EFFICIENCY
from .review import LUCK_MARKS as LUCK_MARKS
from .review import MARKS as MARKS
from .review import MAX_TURNS as MAX_TURNS
from .review import OWNERS as OWNERS
from .review import RACE_EFFICIENCY as RACE_EFFICIENCY
from .review import analyse as analyse
from .review import analyse_game as analyse_game
from .review import AnalysedTurn as AnalysedTurn
from .review import Analysis as Analysis
from .review import Candidate as Candidate
from .review import cube_action as cube_action
from .review import CubeAction as CubeAction
from .review import dice_stream as dice_stream
from .review import efficiency as efficiency
from .review import evaluate as evaluate
from .review import Evaluation as Evaluation
from .review import flip as flip
from .review import hint as hint
from .review import luck as luck
from .review import luck_mark as luck_mark
from .review import mark as mark
from .review import probabilities as probabilities
from .review import RolledCandidate as RolledCandidate
from .review import rollout as rollout
