"""Claiming a presigned upload (S3 under moto): two messages naming the same pending file at once keep one
media item, and the claim that loses the race leaves the winner's bytes where they are."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from moto import mock_aws

from dreamchat import keys
from dreamchat.adapters.media_files import inspect
from dreamchat.adapters.memory_store import MemoryItemStore
from dreamchat.domain.media import Inspected
from dreamchat.domain.models import PairId
from dreamchat.services.media import MediaService
from dreamchat.services.storage.unit_of_work import Storage
from tests.conftest import make_s3

VOICE = (Path(__file__).resolve().parents[1] / "data" / "media" / "voice.ogg").read_bytes()
PAIR = PairId(account_id="acc_1", ai_user_id="ai_1")


def test_two_claims_of_one_upload_at_once_keep_one_item_and_its_bytes(clock, rng) -> None:
    both_inspected = threading.Barrier(2)

    def inspector(data: bytes) -> Inspected:
        kept = inspect(data)
        both_inspected.wait(timeout=5)  # neither keeps anything before both have read the file
        return kept

    with mock_aws():
        blobs = make_s3()
        # moto's in-process S3 is not safe for two bodies written at once through one client (a closed file);
        # the race under test is the record's commit, so the two writes of the bytes take turns
        put, one_at_a_time = blobs.put, threading.Lock()

        def put_in_turn(*args, **kwargs):
            with one_at_a_time:
                return put(*args, **kwargs)

        blobs.put = put_in_turn  # type: ignore[method-assign]
        storage = Storage(MemoryItemStore(clock))
        media = MediaService(storage, blobs, clock, rng, lambda account_id: None, inspector)
        started = media.start_upload(PAIR, "audio/ogg", len(VOICE))
        blobs.put(keys.media_upload_blob(PAIR, started.media_id), VOICE, "audio/ogg")  # the client's POST
        with ThreadPoolExecutor(2) as pool:
            claims = list(pool.map(lambda _: media.unsent(PAIR, started.media_id), range(2)))
        assert [claim.id for claim in claims] == [started.media_id] * 2
        assert media.of_pair(PAIR) == [claims[0]]
        assert blobs.get(keys.media_blob(PAIR, started.media_id)) == VOICE
        assert blobs.get(keys.media_upload_blob(PAIR, started.media_id)) is None
