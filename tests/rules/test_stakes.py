"""Section 5 of the rule book: the stake (C1), offers, takes and drops (C2), the two
progressions (C3), mars with a raised stake (C4), a final turn (C5), matches (C6), the
Crawford game (C7), money play's Jacoby option (C8) and scoring by checkers left (C9).

Game's stake is checked against the reference's second opinion (fastnardy.reference.refused,
raised and score), which keeps its own state, over random walks of offers, answers and turns
in every variant."""

from __future__ import annotations

import random

import pytest

from fastnardy import (FastNardyError, Game, IllegalActionError, IllegalTurnError,
                       InvalidRecordError, Match,
                       Position, Rules)
from fastnardy import reference as ref


VARIANTS = [Rules.short(), Rules.short(stakes="arithmetic"), Rules.short(cube_cancels_mars=True),
            Rules.short(jacoby=True), Rules.long(), Rules.long(stakes="arithmetic"),
            Rules.long(scoring="checkers_left"), Rules.long(scoring="oin_mars_koks", jacoby=True)]


def other(side: str) -> str:
    return "black" if side == "white" else "white"


def attempt(game: Game, action: str):
    """The rule id that refuses ``action``, or None when it was made."""
    try:
        getattr(game, action)()
    except IllegalActionError as exc:
        return exc.rule
    return None


def walk(rules: Rules, seed: int, money: bool = True, crawford_game: bool = False) -> Game:
    """A random game of offers, answers and turns; at every step Game's verdict on each
    action equals the reference's, which keeps its own state."""
    chooser = random.Random(seed)
    game = Game(rules, seed=seed)
    game._money, game._offers_allowed = money, not crawford_game
    state = ref.Stake(1, None, None, not rules.is_long, False, crawford_game)  # short: T6 roll
    while True:
        mover = game.position.turn
        for action in ("offer", "take", "drop"):  # what the reference says of each now
            side = mover if action == "offer" else other(state.offering or mover)
            expected = ref.refused(rules.stakes, state, side, action)
            if expected is not None:  # refused: the same rule, and nothing changed
                before = (game.stake, game.cube_owner, game.offered, game.is_over())
                assert attempt(game, action) == expected, (action, state)
                assert (game.stake, game.cube_owner, game.offered, game.is_over()) == before
        if state.over:
            assert game.is_over()
            return game
        if state.offering is not None:  # answer the offer
            action = chooser.choice(("take", "take", "drop"))
            assert attempt(game, action) is None
            if action == "take":
                state = state._replace(stake=ref.raised(rules.stakes, state.stake),
                                       holder=other(state.offering), offering=None)
            else:
                state = state._replace(offering=None, over=True)
                outcome = game.outcome()
                assert outcome.kind == "drop" and outcome.winner == mover
                assert outcome.points == ref.score(rules, "oin", 0, state.stake, money, True)
        elif not state.thrown and chooser.random() < 0.3 \
                and ref.refused(rules.stakes, state, mover, "offer") is None:
            assert game.offer() == ref.raised(rules.stakes, state.stake)
            state = state._replace(offering=mover)
        else:
            turns = game.legal_turns()  # throws the dice
            state = state._replace(thrown=True)
            assert attempt(game, "offer") == "C2"  # never during a turn
            game.play(chooser.choice(list(turns)))
            state = state._replace(thrown=False, over=game.position.is_game_over())
            if state.over:
                position = game.position
                kind = position.outcome().kind
                loser_off = position.black_off if position.white_off == 15 else position.white_off
                expected = ref.score(rules, kind, 15 - loser_off, state.stake, money, False)
                assert game.outcome().points == expected, (kind, state)
        assert (game.stake, game.cube_owner, game.offered) == \
            (state.stake, state.holder, state.offering)


@pytest.mark.parametrize("rules", VARIANTS, ids=repr)
def test_C1_C2_C3_C4_C8_C9_game_stake_agrees_with_the_reference(rules):
    for seed in range(12):
        walk(rules, seed, money=seed % 2 == 0)


def test_C7_no_offer_in_a_crawford_game():
    game = walk(Rules.short(), 3, money=False, crawford_game=True)
    assert game.stake == 1 and not game.cube_history


def test_C1_the_stake_never_passes_64():
    for rules, offers in ((Rules.long(), 6), (Rules.long(stakes="arithmetic"), 63)):
        game = Game(rules, seed=1)
        for _ in range(offers):
            game.offer()
            game.take()
            game.play(game.legal_turns()[0])
        assert game.stake == 64
        assert not game.may_offer() and game.offer_refusal().rule in ("C1", "C2")
        if game.cube_owner == game.position.turn:
            assert game.offer_refusal().rule == "C1"


def test_C2_the_right_passes_to_the_taker_and_a_drop_scores_the_stake_before_it():
    game = Game("long", seed=2)
    first = game.position.turn
    assert game.may_offer() and game.cube_owner is None  # centred: both hold the right
    assert game.offer() == 2 and game.offered == first
    with pytest.raises(IllegalActionError, match="C2: .*awaits its answer"):
        game.legal_turns()
    with pytest.raises(IllegalActionError, match="C2"):
        game.dice = (6, 5)
    assert game.take() == 2 and game.cube_owner == other(first) and game.offered is None
    assert attempt(game, "offer") == "C2"  # the offerer no longer holds the right
    game.play(game.legal_turns()[0])  # the offerer throws and plays
    assert game.position.turn == other(first) and game.may_offer()
    game.offer()
    outcome = game.drop()
    assert outcome == game.outcome() and outcome.winner == other(first)
    assert (outcome.points, outcome.kind) == (2, "drop") and game.is_over()
    assert attempt(game, "offer") == "C2" and attempt(game, "take") == "C2"
    assert [event.action for event in game.cube_history] == ["offer", "take", "offer", "drop"]


def test_C2_an_answer_needs_an_offer_and_an_offer_comes_before_the_dice():
    game = Game("short", seed=4)
    assert attempt(game, "take") == "C2" and attempt(game, "drop") == "C2"
    assert attempt(game, "offer") == "C2"  # short nardy's first roll is the opening throw
    game.play(game.legal_turns()[0])
    assert game.may_offer()
    _ = game.dice  # thrown
    assert game.offer_refusal().rule == "C2" and "before the dice" in str(game.offer_refusal())


def test_C4_C8_C9_what_a_finished_game_scores():
    # short: white bears off its last checker; black has borne off none (a mars / gammon)
    won = Position.from_string("short b - 6:15")
    rules = Rules.short(cube_cancels_mars=True, jacoby=True)
    position = Position.from_points(rules, won.white_points, won.black_points, "black")
    assert position.outcome(1) == position.outcome().__class__("white", 2, "mars")
    assert position.outcome(4).kind == "oin" and position.outcome(4).points == 4  # C4
    game = Game.from_position(position)
    assert game.outcome().points == 1 and game.outcome().kind == "oin"  # C8, money, stake 1
    long_rules = Rules.long(scoring="checkers_left")
    left = Position.from_points(long_rules, [0] * 24, [0] * 17 + [3] + [0] * 6, "black")
    assert left.outcome(1).points == 3 and left.outcome(2).points == 6  # C9


def test_C5_a_turn_followed_by_an_offer_is_final():
    game = Game("long", seed=6)
    game.play(game.legal_turns()[0])
    game.offer()
    game.take()
    with pytest.raises(IllegalActionError, match="C5: .*an offer came after it") as info:
        game.undo()
    assert info.value.rule == "C5" and len(game.history) == 1


@pytest.mark.parametrize("rules", ["long", "short"])
def test_C5_a_turn_is_final_once_the_opponent_has_thrown_the_dice(rules):
    game = Game(rules, seed=6)
    game.play(game.legal_turns()[0])
    position, history = game.position, tuple(game.history)
    game.undo()  # not final yet: the opponent has not thrown
    game.play(history[-1][1])
    roll = game.dice  # the opponent throws
    with pytest.raises(IllegalActionError, match=f"C5: .*{position.turn} has thrown "
                                                 f"{roll[0]}-{roll[1]}") as info:
        game.undo()
    assert info.value.rule == "C5"
    assert game.position == position and game.history == history and game.dice == roll
    game.dice = (3, 1)  # a roll set by hand is thrown too
    with pytest.raises(IllegalActionError, match="C5"):
        game.undo()
    game.play(game.legal_turns()[0])
    game.undo()  # the roll it gives back was thrown after the turn before: that one is final
    with pytest.raises(IllegalActionError, match="C5: .*has thrown 3-1"):
        game.undo()


def test_C2_a_game_a_drop_ended_has_no_turn_to_play():
    game = Game("long", seed=2)
    game.offer()
    game.drop()
    with pytest.raises(IllegalActionError, match="C2: the game is over: .* dropped") as info:
        game.play("24/18 24/23")
    assert info.value.rule == "C2" and game.is_over() and not game.history


def test_illegal_actions_are_illegal_turn_errors_with_the_rule():
    assert issubclass(IllegalActionError, IllegalTurnError)
    game = Game("long", seed=1)
    with pytest.raises(IllegalActionError) as info:
        game.take()
    assert info.value.rule == "C2" and str(info.value).startswith("C2: ")


def play_out(game: Game, chooser: random.Random) -> None:
    while not game.is_over():
        if game.may_offer() and chooser.random() < 0.1:
            game.offer()
            (game.take if chooser.random() < 0.8 else game.drop)()
            continue
        game.play(chooser.choice(list(game.legal_turns())))


@pytest.mark.parametrize("rules", [Rules.short(), Rules.short(crawford=False), Rules.long()],
                         ids=repr)
@pytest.mark.parametrize("length", [1, 3, 7])
def test_C6_C7_matches_score_their_games_and_skip_offers_in_the_crawford_game(rules, length):
    for seed in range(3):
        match = Match(rules, length, seed=seed)
        chooser = random.Random(seed)
        totals, crawford_seen = [0, 0], False
        while True:
            game = match.game
            crawford = (rules.crawford and length > 1 and not crawford_seen
                        and max(totals) == length - 1)
            assert match.is_crawford() == crawford
            crawford_seen |= crawford
            assert game.may_offer() is False or not crawford
            play_out(game, chooser)
            if crawford:
                assert not game.cube_history
            outcome = game.outcome()
            totals[outcome.winner == "black"] += outcome.points
            assert match.score == tuple(totals)
            if max(totals) >= length:
                break
            assert not match.is_over()
            match.next_game()
        assert match.is_over() and match.winner == ("white" if totals[0] >= length else "black")
        with pytest.raises(FastNardyError, match="C6: the match is over"):
            match.next_game()
        # game g throws stream g of the seed: the same games from Game(seed, stream=g)
        for number, game in enumerate(match.games):
            assert Game(rules, seed, stream=number).opening == game.opening


def test_C6_the_next_game_waits_for_the_current_one_to_end():
    match = Match("long", 3, seed=1)
    with pytest.raises(FastNardyError, match="C6: the current game is not over"):
        match.next_game()
    assert len(match.games) == 1


@pytest.mark.parametrize("rules", [Rules.short(), Rules.long()], ids=repr)
def test_C7_a_match_to_1_point_has_no_crawford_game(rules):
    """C7 (RULES.md): both totals start at N - 1 = 0, none reaches it after a game, so every
    game of a 1-point match is post-Crawford and offers are allowed."""
    for seed in range(4):
        match = Match(rules, 1, seed=seed)
        assert not match.is_crawford() and match.crawford_game is None
        game = match.game
        if rules.is_long:
            assert game.may_offer()
        else:  # short nardy's first roll is the opening throw (C2: offers come before it)
            game.play(game.legal_turns()[0])
            assert game.may_offer() or game.is_over()
        game.offer()
        game.take()
        assert game.stake == 2 and [e.action for e in game.cube_history] == ["offer", "take"]
    text = _played_match(rules, 1, 4).record()
    assert Match.from_record(text).crawford_game is None


@pytest.mark.parametrize("rules", VARIANTS, ids=repr)
def test_C2_records_carry_the_offers_and_answers_both_ways(rules):
    for seed in range(6):
        game = Game(rules, seed=seed)
        play_out(game, random.Random(seed))
        text = game.record()
        again = Game.from_record(text)
        assert again.cube_history == game.cube_history and again.stake == game.stake
        assert again.outcome() == game.outcome() and again.history == game.history
        assert again.record() == text
        if game.cube_history:
            assert any(word in text for word in (" doubles ", " takes", " drops"))


def test_C2_a_record_whose_cube_actions_the_rules_refuse_names_the_rule_and_line():
    start = "rules long\nwhite a\nblack b\nopening 6 1\n"
    with pytest.raises(IllegalActionError, match=r"C2: .*line 5"):
        Game.from_record(start + "1 white takes\n")  # nothing offered
    with pytest.raises(IllegalActionError, match=r"C2: black would make it.*line 6"):
        Game.from_record(start + "1 white doubles 2\n1 white takes\n")
    with pytest.raises(IllegalActionError, match=r"C3: .*to 2, not 4"):
        Game.from_record(start + "1 white doubles 4\n")
    with pytest.raises(IllegalActionError, match=r"C2: .*does not hold the right"):
        Game.from_record(start + "1 white doubles 2\n1 black takes\n1 white 6-5 24/18 18/13\n"
                         "2 black 3-1 24/21 21/20\n3 white doubles 4\n")
    game = Game.from_record(start + "1 white doubles 2\n1 black drops\n")
    assert game.is_over() and game.outcome() == ("white", 1, "drop")
    for bad in ("1 white doubles\n", "1 white takes 2\n", "1 white doubles x\n"):
        with pytest.raises(InvalidRecordError):
            Game.from_record(start + bad)


def test_C9_the_kernels_games_refuse_checkers_left_scoring_with_the_rule():
    from fastnardy import simulate
    from fastnardy.envs.vector import VectorEnv

    rules = Rules.long(scoring="checkers_left")
    assert rules.max_points == 15 and Rules.long().max_points == 2
    with pytest.raises(FastNardyError, match="C9"):
        simulate(rules, 2, seed=1)
    with pytest.raises(FastNardyError, match="C9"):
        VectorEnv(rules, 2, seed=1).reset()


# -- match records (C6, C7) -----------------------------------------------------------------

def _played_match(rules, length: int, seed: int) -> Match:
    """A match of random turns with an offer (always taken) every 9th turn when allowed."""
    match, chooser = Match(rules, length, seed=seed, players=("ann", "bob")), random.Random(seed)
    while True:
        game = match.game
        while not game.is_over():
            if len(game.history) % 9 == 4 and game.may_offer():
                game.offer()
                game.take() if chooser.random() < 0.8 else game.drop()
                continue
            turns = game.legal_turns()
            game.play(turns[chooser.randrange(len(turns))])
        if match.is_over():
            return match
        match.next_game()


@pytest.mark.parametrize("rules", [Rules.short(), Rules.long(), Rules.long(stakes="arithmetic"),
                                   Rules.short(crawford=False)])
def test_a_match_record_reads_back_and_replays_the_same_match_C6_C7(rules):
    from fastnardy.record import is_match_record, read_match, write_match

    match = _played_match(rules, 5, 3)
    text = match.record()
    assert is_match_record(text) and text.startswith("match 5\ngame 1\n")
    assert write_match(read_match(text)) == text
    again = Match.from_record(text)
    assert again.score == match.score and again.winner == match.winner
    assert again.crawford_game == match.crawford_game
    assert [g.history for g in again.games] == [g.history for g in match.games]
    assert [g.cube_history for g in again.games] == [g.cube_history for g in match.games]


def test_analyse_reads_a_match_record_at_its_scores():
    from fastnardy import analysis

    match = _played_match(Rules.long(), 3, 8)
    result = analysis.analyse(match.record(), "m.txt", "net:0")
    assert result.length == 3 and result.games == len(match.games)
    scores = {(r.game, r.cube.score) for r in result.cube_decisions}
    assert all(max(score) < 3 for _, score in scores)


@pytest.mark.parametrize("edit, match", [
    (lambda t: t.replace("match 5", "match x", 1), "begins with 'match N'"),
    (lambda t: t.replace("game 2", "game 3", 1), "game 2 comes next"),
    (lambda t: t.replace("game 1\n", "", 1), "follow its 'game K'"),
    (lambda t: t.replace("white ann", "white eve", 1), "other rules or players"),
    (lambda t: t + "game 99\n", "game .* comes next"),
    (lambda t: "match 5\n", "holds no game"),
])
def test_a_match_record_that_does_not_read_is_refused(edit, match):
    from fastnardy.record import read_match

    text = _played_match(Rules.short(), 5, 3).record()
    with pytest.raises(InvalidRecordError, match=match):
        read_match(edit(text))


def test_a_match_record_with_a_game_too_many_or_too_early_is_refused_C6():
    match = _played_match(Rules.short(), 3, 5)
    text = match.record()
    last = text[text.rindex("game "):]
    number = len(match.games) + 1
    extra = text + f"game {number}" + last[last.index("\n"):]
    with pytest.raises(InvalidRecordError, match="C6: the match was over"):
        Match.from_record(extra)
    first_end = text.index("game 2")
    cut = text[:first_end].rstrip("\n").rsplit("\n", 1)[0] + "\n" + text[first_end:]
    with pytest.raises((InvalidRecordError, IllegalTurnError)):
        Match.from_record(cut)  # game 1 no longer over when game 2 begins


def test_C6_a_match_record_replays_in_time_linear_in_its_games(monkeypatch):
    """Issue 70 item 4: Match.from_record read every game's outcome for every game replayed
    (the score before each, C6, C7): quadratic, 4,000 games 6.6 s and 8,000 25.3 s. The
    totals of the games before the current one are kept; counted, not timed: two outcome
    reads a game (870 for 30 games, 3,540 for 60, before)."""
    match, chooser = Match("short", 1, seed=4), random.Random(4)
    while not match.game.is_over():  # no offers: a game worth 1 to 3 points
        match.game.play(chooser.choice(list(match.game.legal_turns())))
    one = match.record().split("game 1\n", 1)[1]
    reads = []
    original = Game.outcome

    def counted(self):
        reads.append(1)
        return original(self)

    monkeypatch.setattr(Game, "outcome", counted)
    for games in (30, 60):
        reads.clear()
        text = f"match {3 * games}\n" + "".join(f"game {i + 1}\n{one}" for i in range(games))
        replayed = Match.from_record(text)
        assert len(replayed.games) == games and max(replayed.score) >= games
        assert len(reads) <= 2 * games
