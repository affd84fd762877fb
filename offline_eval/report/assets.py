"""The report's inline stylesheet (no external assets); the script is in :mod:`.script`."""
from __future__ import annotations

CSS = """
:root{--fg:#1f2328;--muted:#656d76;--line:#d8dee4;--bg:#f6f8fa;--card:#fff;
--sup:#1f883d;--sup-bg:#dcf3e3;--con:#cf222e;--con-bg:#fde1df;--unv:#6e7781;--unv-bg:#eaeef2;
--inc:#9a6700;--inc-bg:#fff1c2;--par:#bc4c00;--par-bg:#ffe4cc;--def:#8250df;--def-bg:#efe6fd}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.55 system-ui,-apple-system,
"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1120px;margin:0 auto;padding:24px 20px 64px}
h1{font-size:26px;margin:0 0 4px}h2{font-size:20px;margin:36px 0 12px;padding-bottom:6px;
border-bottom:1px solid var(--line)}h3{font-size:16px;margin:0}
.sub,.muted{color:var(--muted)}.num{text-align:right;font-variant-numeric:tabular-nums}
.stats{display:flex;gap:12px;flex-wrap:wrap;margin:12px 0}
.stat{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 16px;
min-width:130px}.stat .v{font-size:22px;font-weight:600}.stat .k{color:var(--muted);
font-size:13px}
.mix{display:flex;height:12px;border-radius:6px;overflow:hidden;margin:12px 0 6px;
background:var(--line)}.legend{display:flex;gap:14px;flex-wrap:wrap;font-size:13px;
color:var(--muted)}.sw{display:inline-block;width:11px;height:11px;border-radius:3px;
margin-right:5px;vertical-align:-1px}
.seg.v-supported,.sw.v-supported{background:var(--sup)}.seg.v-contradicted,
.sw.v-contradicted{background:var(--con)}
.seg.v-unverifiable,.sw.v-unverifiable{background:var(--unv)}.seg.v-inconclusive,
.sw.v-inconclusive{background:var(--inc)}
.seg.v-none,.sw.v-none{background:#afb8c1}
.seg.v-unsupported,.sw.v-unsupported,.cb.v-unsupported{background:#e5534b}
.sent.v-unsupported{background:var(--con-bg);border-color:#e5534b}
.claim.v-unsupported{border-left-color:#e5534b}.chip.v-unsupported{background:var(--con-bg);
color:var(--con)}
.sw.k-deflection{background:var(--def-bg);border:1px dashed var(--def)}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(230px,1fr));gap:10px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 12px}
.card .name{font-size:13px;color:var(--muted);font-weight:600}
.card .mean{font-size:24px;font-weight:600;font-variant-numeric:tabular-nums}
.card .ci,.card .n{font-size:12px;color:var(--muted)}
.undefined ul{margin:4px 0 0 18px;padding:0;font-size:13px;color:var(--muted)}
.undefined .name{font-weight:600}
.gtab{width:100%;font-size:12px;margin-top:6px;border-top:1px solid var(--line)}
.gtab td{padding:1px 2px;white-space:nowrap}.gtab .ci{color:var(--muted);font-size:11px}
figure.plot{background:var(--card);border:1px solid var(--line);border-radius:8px;
margin:14px 0;padding:12px}figure.plot svg{display:block;width:100%;max-width:860px;height:auto;
margin:0 auto}figure.plot svg *{stroke-linejoin:round;stroke-linecap:butt}
figcaption{font-size:13px;color:var(--muted);margin-top:6px}
table{border-collapse:collapse}.metric-table,.nuggets{width:100%;font-size:13px;margin:8px 0;
background:var(--card)}.metric-table th,.metric-table td,.nuggets th,.nuggets td{
border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
.toolbar{position:sticky;top:0;z-index:5;background:var(--bg);display:flex;gap:8px;
flex-wrap:wrap;align-items:center;padding:8px 0;border-bottom:1px solid var(--line)}
.toolbar button,.toolbar select,.toolbar input{font:inherit;font-size:13px;padding:4px 10px;
border:1px solid var(--line);border-radius:6px;background:var(--card)}
.toolbar button{cursor:pointer}.toolbar .count{color:var(--muted);font-size:13px}
.resp{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:14px 18px;
margin:14px 0}.resp[data-status=error]{border-left:4px solid var(--con)}
.resp[data-verdict=incorrect]{border-left:4px solid var(--con)}
.resp[data-verdict=partially-correct]{border-left:4px solid var(--par)}
.resp[data-verdict=correct]{border-left:4px solid var(--sup)}
.resp[data-verdict=inconclusive]{border-left:4px solid var(--inc)}
.resp header{display:flex;justify-content:space-between;gap:10px;flex-wrap:wrap;
align-items:baseline}.rid{font-family:ui-monospace,SFMono-Regular,Menlo,monospace}
.date{color:var(--muted);font-weight:400;font-size:13px;margin-left:10px}
.tags{display:flex;gap:4px;flex-wrap:wrap}
.query{margin:8px 0;font-weight:600}.lbl{display:inline-block;font-size:11px;font-weight:600;
text-transform:uppercase;letter-spacing:.04em;color:var(--muted);margin-right:8px}
.response{white-space:pre-wrap;line-height:1.9;margin:8px 0;overflow-wrap:anywhere}
.sent{border-radius:3px;padding:1px 0;border-bottom:2px solid transparent}
.sent.v-supported{background:var(--sup-bg);border-color:var(--sup)}
.sent.v-contradicted{background:var(--con-bg);border-color:var(--con)}
.sent.v-unverifiable{background:var(--unv-bg);border-color:var(--unv)}
.sent.v-inconclusive{background:var(--inc-bg);border-color:var(--inc)}
.sent.v-none{border-bottom:2px dotted #afb8c1}
.sent.imp-vital{border-bottom-width:3px;font-weight:600}
.sent.imp-less-important{border-bottom-style:dashed;border-bottom-width:1px}
.sent.k-deflection{background:var(--def-bg);border:1px dashed var(--def);font-style:italic}
.sent.k-non-claim{color:var(--muted)}
.badges{margin:0 3px 0 1px;line-height:1}
.cb{display:inline-block;min-width:16px;padding:0 4px;margin-left:2px;border-radius:8px;
font-size:10.5px;font-weight:700;text-align:center;text-decoration:none;color:#fff;
background:#afb8c1;line-height:16px;font-style:normal}
.cb.v-supported{background:var(--sup)}.cb.v-contradicted{background:var(--con)}
.cb.v-unverifiable{background:var(--unv)}.cb.v-inconclusive{background:var(--inc)}
.cb.imp-less-important{opacity:.7}.cb.imp-vital{box-shadow:0 0 0 2px #fff,
0 0 0 3px currentColor;color:#fff}
.chip{display:inline-block;font-size:11.5px;font-weight:600;padding:1px 8px;border-radius:10px;
background:var(--unv-bg);color:var(--fg);white-space:nowrap}
.chip.v-supported,.chip.av-correct,.chip.rel-relevant,.chip.tim-timely,.chip.sup-support,
.chip.time-timely{background:var(--sup-bg);color:var(--sup)}
.chip.v-contradicted,.chip.av-incorrect,.chip.mag-major,.chip.rel-not-relevant,
.chip.tim-not-timely,.chip.time-not-timely,.chip.sup-not-support{background:var(--con-bg);
color:var(--con)}
.chip.v-inconclusive,.chip.av-inconclusive,.chip.rel-not-specific{background:var(--inc-bg);
color:var(--inc)}
.chip.av-partially-correct,.chip.mag-minor,.chip.sup-partial-support{background:var(--par-bg);
color:var(--par)}
.chip.deflection{background:var(--def-bg);color:var(--def)}.chip.imp-vital{background:#1f2328;
color:#fff}
.chip.core{background:#0969da;color:#fff}.chip.decisive{background:#0969da;color:#fff;
margin-right:6px}
.chip.group{background:#ddf4ff;color:#0550ae}
.reasons{margin:6px 0;padding-left:20px;color:var(--con);font-size:14px}
.row-metrics{display:flex;gap:14px;flex-wrap:wrap;font-size:13px;margin:6px 0;
font-variant-numeric:tabular-nums}.rm .k{color:var(--muted)}
details{margin:8px 0}summary{cursor:pointer;font-weight:600;font-size:14px;color:#0969da}
.claim-list{padding-left:0;list-style:none;margin:8px 0}
.claim{border:1px solid var(--line);border-left:4px solid #afb8c1;border-radius:6px;
padding:8px 12px;margin:8px 0}.claim.v-supported{border-left-color:var(--sup)}
.claim.v-contradicted{border-left-color:var(--con)}
.claim.v-unverifiable{border-left-color:var(--unv)}
.claim.v-inconclusive{border-left-color:var(--inc)}.claim:target{box-shadow:0 0 0 3px #0969da55}
.claim-head{display:flex;gap:8px}.cnum{font-weight:700;color:var(--muted)}
.claim-tags,.claim-audit{display:flex;gap:6px;flex-wrap:wrap;align-items:center;margin:4px 0;
font-size:13px}.meta{color:var(--muted);font-size:12.5px}
.probs{display:flex;gap:6px;flex-wrap:wrap;margin:4px 0}
.prob{position:relative;width:150px;height:18px;background:var(--bg);
border:1px solid var(--line);
border-radius:4px;overflow:hidden;font-size:11.5px}.prob .bar{position:absolute;left:0;top:0;
bottom:0;background:#afb8c1;opacity:.45}.prob.v-supported .bar,
.prob.v-entailment .bar{background:var(--sup)}
.prob.v-contradicted .bar,.prob.v-contradiction .bar{background:var(--con)}
.prob .pl{position:relative;padding-left:5px}
.src{font-size:13px;color:var(--muted);margin:4px 0}
.evidence{padding-left:20px;margin:6px 0;font-size:13.5px}.ev{margin:6px 0}
.ev a.doc{font-weight:700;color:#0969da}
.ev blockquote{margin:4px 0;padding:4px 10px;border-left:3px solid var(--line);
background:var(--bg);white-space:pre-wrap}.ev.decisive blockquote{border-left-color:#0969da}
.error-box{background:var(--con-bg);border-radius:6px;padding:8px 12px;margin:8px 0}
.error-box pre{margin:4px 0 0;white-space:pre-wrap;font-size:13px}
.hidden{display:none}
.headline{display:flex;gap:8px;flex-wrap:wrap;margin:10px 0 4px;align-items:stretch}
.headline .total,.tile{background:var(--card);border:1px solid var(--line);border-radius:8px;
padding:6px 14px;min-width:112px;display:flex;flex-direction:column;text-decoration:none;
color:var(--fg)}.headline .v{font-size:26px;font-weight:700;line-height:1.2;
font-variant-numeric:tabular-nums}.headline .k{font-size:13px;font-weight:600}
.tile .share{font-size:12px;color:var(--muted)}.tile:hover{box-shadow:0 0 0 2px #0969da55}
.tile{border-top:4px solid var(--unv)}.tile.av-correct{border-top-color:var(--sup)}
.tile.av-incorrect{border-top-color:var(--con)}.tile.av-incorrect .v{color:var(--con)}
.tile.av-partially-correct{border-top-color:var(--par)}
.tile.av-inconclusive{border-top-color:var(--inc)}.tile.av-deflection{border-top-color:var(--def)}
.tile.av-error{border-top-color:#1f2328}
.triage{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:14px;margin:8px 0}
@media (max-width:800px){.triage{grid-template-columns:1fr}}
.worst-box,.key-box{background:var(--card);border:1px solid var(--line);border-radius:8px;
padding:8px 14px}.worst-box h2{font-size:16px;margin:2px 0 6px;padding:0;border:0}
.worst{margin:0;padding-left:22px;font-size:13.5px}.worst li{margin:3px 0}
.worst .rid{font-weight:700}.worst .chip{margin:0 0 0 6px}
.wclaim{margin-left:8px}.wclaim::before{content:"“"}.wclaim::after{content:"”"}
.wwhy{display:block;color:var(--muted);font-size:12.5px;overflow:hidden;text-overflow:ellipsis;
white-space:nowrap}
.key-box{display:grid;grid-template-columns:1fr 1fr;gap:8px;align-content:start}
.kcard .name{font-size:12.5px;color:var(--muted);font-weight:600}
.kcard .mean{font-size:22px;font-weight:650;font-variant-numeric:tabular-nums}
.kcard .ci{font-size:12px;color:var(--muted)}.kcard .means,.card .means{font-size:12px;
color:var(--muted);line-height:1.35;margin-top:2px}
details.all-metrics>summary{margin:6px 0}
.ctl{font-size:13px;color:var(--muted);display:inline-flex;gap:4px;align-items:center}
.sw.s-correct,.cb.s-correct{background:var(--sup)}.sw.s-incorrect,.cb.s-incorrect{background:var(--con)}
.sw.s-partially-correct,.cb.s-partially-correct{background:var(--par)}
.sw.s-inconclusive,.cb.s-inconclusive{background:var(--inc)}
.sw.s-unverifiable,.cb.s-unverifiable{background:var(--unv)}
.sw.not-timely{border:2px dashed var(--con);background:transparent}
.sent.s-correct{background:var(--sup-bg);border-color:var(--sup)}
.sent.s-incorrect{background:var(--con-bg);border-color:var(--con)}
.sent.s-partially-correct{background:var(--par-bg);border-color:var(--par)}
.sent.s-inconclusive{background:var(--inc-bg);border-color:var(--inc)}
.sent.s-unverifiable{background:var(--unv-bg);border-color:var(--unv)}
.sent.s-none{border-bottom:2px dotted #afb8c1}.sent.not-timely{outline:2px dashed var(--con)}
.cb.more{opacity:.75}
.claim.s-correct{border-left-color:var(--sup)}.claim.s-incorrect{border-left-color:var(--con)}
.claim.s-partially-correct{border-left-color:var(--par)}
.claim.s-inconclusive{border-left-color:var(--inc)}.claim.s-unverifiable{border-left-color:var(--unv)}
.claim.not-timely{outline:2px dashed var(--con)}
.chip.s-correct{background:var(--sup-bg);color:var(--sup)}
.chip.s-incorrect{background:var(--con-bg);color:var(--con)}
.chip.s-partially-correct{background:var(--par-bg);color:var(--par)}
.chip.s-inconclusive{background:var(--inc-bg);color:var(--inc)}
.chip.av-deflection{background:var(--def-bg);color:var(--def)}
.chip.empty{background:var(--bg);color:var(--muted);border:1px dashed var(--unv)}
.resp[data-verdict=unverifiable]{border-left:4px solid var(--unv)}
.resp[data-verdict=deflection]{border-left:4px solid var(--def)}
.override{margin:4px 0;padding:3px 8px;border-radius:4px;background:var(--inc-bg);
font-size:13px}.override::before{content:"⚑ ";color:var(--inc)}
.vreason{margin:2px 0;font-size:12.5px;color:var(--muted)}
mark.win{background:#ddf4ff;color:inherit;padding:0 1px}
.resp,.claim,#answers{scroll-margin-top:120px}
mark.cmp{background:#ffd8b5;color:inherit;font-weight:700;padding:0 2px;border-radius:2px}
.sgroups{list-style:none;padding:0;margin:6px 0}.sgroup{margin:6px 0}
.stext{margin:6px 0 0;font-size:13.5px;color:var(--muted);font-style:italic}
.more-claims>summary{font-size:13px}
"""
