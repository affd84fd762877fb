"""The English stopword list used by the BM25 tokeniser.

A short, hand-written list of function words (articles, pronouns, auxiliaries,
prepositions, conjunctions). Negations ("no", "not", "nor", "never") and numbers are
kept on purpose: they matter when checking a claim.

>>> "the" in STOPWORDS, "not" in STOPWORDS
(True, False)
"""
from __future__ import annotations

STOPWORDS: frozenset[str] = frozenset("""
a about above after again against all also am an and any are aren as at be because been
before being below between both but by can could couldn did didn do does doesn doing 
down during each few for from further had hadn has hasn have haven having he her here hers
herself him himself his how i if in into is isn it its itself just ll me more most
mustn my myself now of off on once only or other our ours ourselves out over own re s
same shan she should shouldn so some such t than that the their theirs them themselves
then there these they this those through to too under until up ve very was wasn we were
weren what when where which while who whom why will with would wouldn you your yours
yourself yourselves d m o y ain
""".split())
