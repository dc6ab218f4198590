"""Evaluation: the benchmark record format and its loader."""

from cage_core.eval.datasets import DatasetFormatError, EvalPassage, EvalQuestion, load_questions

__all__ = ["DatasetFormatError", "EvalPassage", "EvalQuestion", "load_questions"]
