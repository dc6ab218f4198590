"""The cross-validation behind CAGE's defaults, shared by the scripts of ``benchmarks/tuning/``.

A library, not a script: the tuning scripts put ``benchmarks/`` on ``sys.path`` and import it
(``from crossval import fold_of``); no script imports another script. Its parts:

* :mod:`~crossval.folds`: a question's fold, a hash of its id (``fold_of``);
* :mod:`~crossval.grids`: the grid of every tuned setting;
* :mod:`~crossval.choice`: grid points and the out-of-fold choice (``cross_validate``);
* :mod:`~crossval.bootstrap`: paired bootstrap intervals (``paired_interval``);
* :mod:`~crossval.measures`: Recall@3 / @5 and misinformation of one ranked pool;
* :mod:`~crossval.orders`: the rankings compared (CAGE's own ``score_pool``, hybrid);
* :mod:`~crossval.dev_pools`, :mod:`~crossval.untitled_pools`: the DEV pools each script
  ranks, built as ``cage eval`` builds them; :mod:`~crossval.pool_files`: their files (gzipped
  JSON, no pickle);
* :mod:`~crossval.routing_arrays`: the routing grid's points and the files of their figures
  (``routing_cv.py``'s and ``routing_folders.py``'s).
"""

from .bootstrap import RESAMPLES, paired_interval
from .choice import CrossValidation, cross_validate, grid_points, group_objective
from .folds import FOLDS, fold_array, fold_of, shuffled_folds

__all__ = [
    "FOLDS",
    "RESAMPLES",
    "CrossValidation",
    "cross_validate",
    "fold_array",
    "fold_of",
    "grid_points",
    "group_objective",
    "paired_interval",
    "shuffled_folds",
]
