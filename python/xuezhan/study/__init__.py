"""Rule studies: the same hands under several rule variants, and what the rules change.

    >>> from xuezhan.study import load_study, run_study, study_report  # doctest: +SKIP
    >>> df = run_study("studies/cap-sweep.toml", hands=400)
    >>> print(format_study(study_report(df)))

See docs/studies.md: :mod:`.config` for the TOML format, :mod:`.runner` for the output folder
and the tidy table, :mod:`.report` for what is reported and :mod:`.estimators` for the statistics.
"""

from xuezhan.study.config import (
    StudyConfig,
    StudyConfigError,
    Variant,
    load_study,
    study_from_dict,
)
from xuezhan.study.runner import (
    STUDY_COLUMNS,
    StudyError,
    load_study_results,
    run_study,
)

__all__ = [
    "STUDY_COLUMNS",
    "StudyConfig",
    "StudyConfigError",
    "StudyError",
    "Variant",
    "load_study",
    "load_study_results",
    "run_study",
    "study_from_dict",
]
