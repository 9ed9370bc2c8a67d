"""The analysis of a game as one self-contained HTML page (``fastnardy analyse --html``).

The page needs no network: the boards are inline SVG (:func:`fastnardy.formats.svg.board`), the
style and the script inline. It shows each side's totals (chequer, cube and overall error
rates with gnubg's ratings when the analysis is cubeful), a list of every turn (the cube
decision before it, played, loss, gnubg's mark, luck) and one board at a time: the position
before the turn, its points numbered for the side to move, with the played turn drawn as
arrows, its cube decisions' equities, and on a marked turn (doubtful or worse) a second
board with the best turn. Buttons, the arrow keys and the list move between turns; the
address's ``#turn-N`` opens turn N. From 1,280 px wide the list stands beside the boards,
narrower above them; a table too wide for the window scrolls in its own box, never the page.
"""

from __future__ import annotations

import html
from typing import List, Tuple

from .. import checks
from ..errors import FastNardyError
from ..formats import ids, svg
from .review import CUBE_ERRORS, Analysis, AnalysedTurn, CubeReview
from ..basics import BLACK, WHITE
from ..notation import format_roll
from ..position import Turn

_STYLE = """
body{font-family:system-ui,sans-serif;margin:1em;color:#222;background:#fafafa}
h1{font-size:1.3em} table{border-collapse:collapse;font-size:.9em}
td,th{padding:.15em .35em;border-bottom:1px solid #ddd;text-align:left;white-space:nowrap}
th,.totals td{white-space:normal;vertical-align:bottom}
.scroll{overflow-x:auto;max-width:100%;margin-bottom:.8em}
#layout{display:grid;grid-template-columns:fit-content(45%) minmax(0,1fr);gap:1.5em;
align-items:start}
@media (max-width:1260px){#layout{grid-template-columns:minmax(0,1fr)}}
#list{max-height:80vh;overflow:auto;min-width:min-content;border:1px solid #ccc;background:#fff;
position:relative}
#list tr{cursor:pointer} #list tr.current{background:#cde3f7}
#list td.cubes{white-space:normal;min-width:7em}
svg{max-width:100%;height:auto}
.turn{display:none} .turn.shown{display:block}
.boards{display:flex;gap:1em;flex-wrap:wrap} .boards figure{margin:0}
.very-bad{color:#b00020;font-weight:bold} .bad{color:#d2691e;font-weight:bold}
.doubtful{color:#8a6d00} .cube{margin:.3em 0}
.ids code{overflow-wrap:anywhere;font-size:.85em}
.candidates tr.played{font-weight:bold} .plot{background:#fff;border:1px solid #ccc}
nav button{font-size:1em;margin-right:.5em}
"""

_SCRIPT = """
const turns=[...document.querySelectorAll('.turn')];
const rows=[...document.querySelectorAll('#list tr[data-turn]')];
let current=0;
function show(i){
  if(!turns.length)return;
  current=Math.max(0,Math.min(turns.length-1,i));
  turns.forEach((t,k)=>t.classList.toggle('shown',k===current));
  rows.forEach((r,k)=>r.classList.toggle('current',k===current));
  const list=document.getElementById('list'),row=rows[current];
  if(row.offsetTop<list.scrollTop||row.offsetTop+row.offsetHeight>list.scrollTop+list.clientHeight)
    list.scrollTop=row.offsetTop-list.clientHeight/2;
  document.getElementById('where').textContent=(current+1)+' / '+turns.length;
  history.replaceState(null,'','#turn-'+(current+1));
}
document.getElementById('prev').onclick=()=>show(current-1);
document.getElementById('next').onclick=()=>show(current+1);
document.getElementById('next-mistake').onclick=()=>{
  for(let k=current+1;k<turns.length;k++){if(turns[k].dataset.mark){show(k);return;}}};
rows.forEach((r,k)=>r.onclick=()=>show(k));
document.addEventListener('keydown',e=>{
  if(e.key==='ArrowLeft')show(current-1);if(e.key==='ArrowRight')show(current+1);});
const m=location.hash.match(/^#turn-(\\d+)$/);
show(m?Number(m[1])-1:0);
"""


def _scrolled(table: str) -> str:
    """A table in its own box, which scrolls sideways when the window is too narrow for it
    instead of the page."""
    return f"<div class='scroll'>{table}</div>"


def _mark_class(turn: AnalysedTurn) -> str:
    return "" if turn.mark is None else turn.mark.replace(" ", "-")


# the list's cube column: W/B and what was done, "?" on an error
_SHORT = {"no double": "no double", "double": "doubles", "take": "takes", "pass": "passes"}


def _cube_text(reviews: List[CubeReview]) -> str:
    """The cube decisions before a turn, one paragraph each."""
    out = []
    for review in reviews:
        decision = review.decision
        verdict = f"lost {review.loss:.3f} ({review.error})" if review.error else "right"
        mark = f" &mdash; <span class='{review.mark.replace(' ', '-')}'>{review.mark}</span>" \
            if review.mark else ""
        out.append(f"<p class='cube'>Cube {review.cube.value}: {review.side} "
                   f"<b>{review.played}</b>; proper {html.escape(decision.action)}; "
                   f"{verdict}{mark}. No double {decision.no_double:+.3f}, double, take "
                   f"{decision.double_take:+.3f}, double, pass {decision.double_pass:+.3f}"
                   f"</p>")
    return "".join(out)


def _turn_section(index: int, turn: AnalysedTurn, reviews: List[CubeReview]) -> str:
    title = (f"Game {turn.game}, move {turn.number}: {turn.side} {format_roll(turn.roll)} "
             f"plays {turn.played}")

    def drawn(highlight: Turn) -> str:  # numbered for the side to move: black's 15/10
        return svg.board(turn.position, size=400, highlight=highlight, numbering="mover")

    boards = [f"<figure>{drawn(turn.played)}"
              f"<figcaption>played: {html.escape(str(turn.played))} "
              f"({turn.played_equity:+.3f})</figcaption></figure>"]
    if turn.mark is not None:
        boards.append(f"<figure>{drawn(turn.best)}"
                      f"<figcaption>best: {html.escape(str(turn.best))} "
                      f"({turn.best_equity:+.3f})</figcaption></figure>")
    verdict = "forced" if turn.forced else f"equity lost {turn.loss:.3f}"
    if turn.mark is not None:
        verdict += f" &mdash; <span class='{_mark_class(turn)}'>{turn.mark}</span>"
    marked = turn.mark or next((r.mark for r in reviews if r.mark), None) or ""
    mine, theirs = turn.pips
    return (f"<section class='turn' id='board-{index + 1}' data-mark='{marked}'>"
            f"<h2>{html.escape(title)}</h2>{_ids(turn)}{_cube_text(reviews)}"
            f"<p>{verdict}; luck of the "
            f"roll {turn.luck:+.3f}; pips {turn.side} {mine}, the other {theirs}</p>"
            f"{_candidates(turn)}<div class='boards'>{''.join(boards)}</div></section>")


def _ids(turn: AnalysedTurn) -> str:
    """A short-nardy turn's position, roll, cube and score as an XGID and GNU Backgammon's
    ids (fastnardy.formats.ids), to paste into other programs."""
    if turn.position.rules.game != "short":
        return ""
    state = ids.MatchState.of(turn.position, turn.cube, turn.roll)
    return (f"<p class='ids'><code>{ids.write_xgid(state)}</code> "
            f"<code>{ids.write_gnubg_ids(state)}</code></p>")


def _candidates(turn: AnalysedTurn) -> str:
    """The best candidates of a turn, ranked, with their equities and probabilities."""
    if not turn.candidates:
        return ""
    cubeful = turn.cube is not None
    rows = []
    for rank, candidate in enumerate(turn.candidates, 1):
        equity = candidate.cubeful if cubeful else candidate.equity
        played = " class='played'" if candidate.turn.position == turn.played.position else ""
        rows.append(f"<tr{played}><td>{rank}</td><td>{html.escape(str(candidate.turn))}</td>"
                    f"<td>{equity:+.3f}</td><td>{candidate.difference:+.3f}</td>"
                    + "".join(f"<td>{100 * p:.1f}%</td>" for p in candidate.probabilities)
                    + "</tr>")
    return _scrolled("<table class='candidates'><tr><th></th><th>candidate</th><th>"
                     + ("cubeful" if cubeful else "equity") + "</th><th>diff</th><th>win</th>"
                     "<th>win mars</th><th>win koks</th><th>lose mars</th><th>lose koks</th>"
                     "</tr>" + "".join(rows) + "</table>")


def _plot(analysis: Analysis) -> str:
    """White's equity after each turn (the played turn's, from white's side) as an inline
    SVG line, one segment a game."""
    if not analysis.turns:
        return ""
    width, height, top = 800, 160, 1.0
    values = [t.played_equity if t.side == WHITE else -t.played_equity
              for t in analysis.turns]
    top = max(top, max(abs(v) for v in values))
    step = width / max(len(values) - 1, 1)

    def y(value: float) -> float:
        return round(height / 2 - value / top * (height / 2 - 4), 1)

    lines, start = [], 0
    for end in range(1, len(values) + 1):
        if end == len(values) or analysis.turns[end].game != analysis.turns[start].game:
            points = " ".join(f"{round(i * step, 1)},{y(values[i])}" for i in range(start, end))
            lines.append(f"<polyline points='{points}' fill='none' stroke='#1f5fa8' "
                         f"stroke-width='1.5'/>")
            if start:
                lines.append(f"<line x1='{round(start * step, 1)}' x2='{round(start * step, 1)}'"
                             f" y1='0' y2='{height}' stroke='#bbb' stroke-dasharray='3'/>")
            start = end
    return (f"<figure><svg xmlns='http://www.w3.org/2000/svg' width='{width}' "
            f"height='{height}' viewBox='0 0 {width} {height}' class='plot'>"
            f"<line x1='0' x2='{width}' y1='{height / 2}' y2='{height / 2}' stroke='#888'/>"
            + "".join(lines) + f"</svg><figcaption>white's equity after each turn (played), "
            f"&plusmn;{top:.2f} at the edges; dashed lines begin games</figcaption></figure>")


def _grouped(analysis: Analysis) -> List[Tuple[AnalysedTurn, List[CubeReview]]]:
    """Each turn with the cube decisions before it; those after a game's last turn (an offer
    dropped) go with that turn."""
    groups: List[Tuple[AnalysedTurn, List[CubeReview]]] = []
    waiting: List[CubeReview] = []
    for item in analysis.in_order():
        if isinstance(item, CubeReview):
            waiting.append(item)
            continue
        if groups:
            groups[-1][1].extend(r for r in waiting if r.game != item.game)
            waiting = [r for r in waiting if r.game == item.game]
        groups.append((item, waiting))
        waiting = []
    if groups:
        groups[-1][1].extend(waiting)
    return groups


def _totals(analysis: Analysis) -> str:
    """The table of each side's totals."""
    cubeful = analysis.cubeful
    head = ("<tr><th>side</th><th>player</th><th>chequer error rate</th><th>unforced turns"
            "</th><th>marks</th>" + ("<th>cube error rate</th><th>cube decisions (close)</th>"
                                     "<th>cube errors</th><th>overall error rate</th>"
                                     "<th>rating</th>" if cubeful else "")
            + "<th>luck</th></tr>")
    rows = []
    for side in (WHITE, BLACK):
        t = analysis.side(side)
        marks = ", ".join(f"{count} {mark}" for mark, count in t["marks"].items())
        cells = [side, html.escape(t["name"]), f"{t['error_rate']:.1f}", str(t["unforced"]),
                 marks]
        if cubeful:
            cube = t["cube"]
            errors = ", ".join(f"{cube[kind]} {kind}" for kind in CUBE_ERRORS if cube[kind])
            cells += [f"{cube['error_rate']:.1f}", f"{cube['decisions']} ({cube['close']})",
                      errors or "none", f"{t['overall_error_rate']:.1f}",
                      html.escape(t["ratings"]["overall"])]
        cells.append(f"{t['luck']:+.3f}")
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return _scrolled(f"<table class='totals'>{head}{''.join(rows)}</table>")


def _games(analysis: Analysis) -> str:
    """Each game's score as it began and each side's error rate in it."""
    numbers = sorted({t.game for t in analysis.turns})
    if len(numbers) < 2:
        return ""
    scores = analysis.scores()
    key = "overall_error_rate" if analysis.cubeful else "error_rate"
    rows = []
    for number in numbers:
        score = scores.get(number, (0, 0))
        cells = [str(number), f"{score[0]}-{score[1]}" if analysis.length else ""]
        cells += [f"{analysis.side(side, number)[key]:.1f}" for side in (WHITE, BLACK)]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return _scrolled("<table class='games'><tr><th>game</th><th>score</th><th>white's error "
                     "rate</th><th>black's error rate</th></tr>" + "".join(rows) + "</table>")


def page(analysis: Analysis, name: str = "game") -> str:
    """The page of ``analysis`` (see the module docstring), titled with ``name``."""
    if not isinstance(analysis, Analysis):
        raise FastNardyError(f"analysis must be an Analysis (fastnardy.analysis.analyse), "
                             f"not {type(analysis).__name__}")
    name = checks.text(name, "name")
    rows: List[str] = []
    sections: List[str] = []
    for index, (turn, reviews) in enumerate(_grouped(analysis)):
        cube = ", ".join(f"{r.side[0].upper()} {_SHORT[r.played]}" + ("?" if r.error else "")
                         for r in reviews if r.played != "no double" or r.error)
        wrong = next((r.mark for r in reviews if r.mark), None)
        rows.append(f"<tr data-turn='{index}'><td>{turn.game}.{turn.number}</td>"
                    f"<td class='cubes{'' if wrong is None else ' ' + wrong.replace(' ', '-')}'>"
                    f"{html.escape(cube)}</td>"
                    f"<td>{turn.side}</td><td>{format_roll(turn.roll)}</td>"
                    f"<td>{html.escape(str(turn.played))}</td>"
                    f"<td>{'' if turn.forced else f'{turn.loss:.3f}'}</td>"
                    f"<td class='{_mark_class(turn)}'>{turn.mark or ''}</td>"
                    f"<td>{turn.luck:+.3f}</td></tr>")
        sections.append(_turn_section(index, turn, reviews))
    title = html.escape(f"Analysis of {name}")
    where = (f"a match to {analysis.length}" if analysis.length else "money play")
    units = (f"cubeful, {where}: equity in EMG (normalised money equity, in stakes)"
             if analysis.cubeful else "equity in cubeless points")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>{_STYLE}</style></head><body>
<h1>{title}</h1>
<p>{analysis.games} game(s), {len(analysis.turns)} turns, {analysis.plies} ply; {units};
error rates in mEMG per decision; marks at GNU Backgammon's thresholds (doubtful &ge; 0.04,
bad &ge; 0.08, very bad &ge; 0.16).</p>
{_totals(analysis)}
{_games(analysis)}
{_plot(analysis)}
<nav><p><button id="prev">&larr; previous</button><button id="next">next &rarr;</button>
<button id="next-mistake">next mistake</button><span id="where"></span></p></nav>
<div id="layout"><div id="list"><table><tr><th>move</th><th>cube</th><th>side</th>
<th>roll</th><th>played</th><th>lost</th><th>mark</th><th>luck</th></tr>{''.join(rows)}</table>
</div>
<div id="boards">{''.join(sections)}</div></div>
<script>{_SCRIPT}</script></body></html>
"""
