"""jieba builds its prefix dictionary from `dict.txt` on first use (seconds on a cold Lambda).
The Lambda layer ships it prebuilt beside jieba (`infra/bundling.py`); this points jieba at it.
Elsewhere nothing changes: jieba builds the dictionary once and caches it in the temp folder."""

from __future__ import annotations

from pathlib import Path

PREBUILT = "jieba.cache"  # the file name jieba itself gives the cache of its default dictionary


def use_prebuilt_dictionary() -> bool:
    """True when a prebuilt dictionary was found and jieba will load it."""
    import jieba

    folder = Path(jieba.__file__).parent
    if not (folder / PREBUILT).is_file():
        return False
    jieba.dt.tmp_dir = str(folder)
    return True
