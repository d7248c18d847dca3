"""Blob stores: S3 in AWS, a directory locally. Keys are `/`-separated relative paths.

S3 also signs links for one object and a short time (`SignedBlobs`): a presigned GET a client follows to
fetch a photo, a presigned POST it sends a file with, so no file passes through the Lambda's payload.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any
from xml.sax.saxutils import escape

from botocore.exceptions import ClientError

from dreamchat.adapters.private import DIR_MODE, private_dir
from dreamchat.ports import UploadForm


def check_key(key: str) -> str:
    """Refuse keys that could escape the store's root (absolute, `..`, empty parts)."""
    parts = PurePosixPath(key).parts
    if not key or key.startswith("/") or "\\" in key or any(p in ("", ".", "..") for p in parts):
        raise ValueError("invalid blob key")
    if key.endswith("/") or "//" in key:
        raise ValueError("invalid blob key")
    return key


class DirectoryBlobStore:
    def __init__(self, root: Path) -> None:
        self._root = private_dir(root)

    def put(self, key: str, data: bytes, content_type: str = "application/json") -> None:
        path = self._path(key)
        for folder in reversed(path.relative_to(self._root).parents[:-1]):
            (self._root / folder).mkdir(exist_ok=True, mode=DIR_MODE)
        # mkstemp creates the file 0600. Write then rename so a reader never sees half a document.
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.replace(temporary, path)

    def get(self, key: str) -> bytes | None:
        path = self._path(key)
        return path.read_bytes() if path.is_file() else None

    def delete(self, key: str) -> None:
        self._path(key).unlink(missing_ok=True)

    def list(self, prefix: str) -> list[str]:
        keys = (p.relative_to(self._root).as_posix() for p in self._root.rglob("*") if p.is_file())
        return sorted(k for k in keys if k.startswith(prefix) and not PurePosixPath(k).name.startswith(".tmp-"))

    def _path(self, key: str) -> Path:
        return self._root.joinpath(*PurePosixPath(check_key(key)).parts)


class S3BlobStore:
    def __init__(self, client: Any, bucket: str) -> None:
        self._client = client
        self._bucket = bucket

    def put(self, key: str, data: bytes, content_type: str = "application/json") -> None:
        self._client.put_object(Bucket=self._bucket, Key=check_key(key), Body=data, ContentType=content_type)

    def get(self, key: str) -> bytes | None:
        try:
            response = self._client.get_object(Bucket=self._bucket, Key=check_key(key))
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                return None
            raise
        return response["Body"].read()

    def delete(self, key: str) -> None:
        self._client.delete_object(Bucket=self._bucket, Key=check_key(key))

    def list(self, prefix: str) -> list[str]:
        paginator = self._client.get_paginator("list_objects_v2")
        pages = paginator.paginate(Bucket=self._bucket, Prefix=prefix)
        return sorted(obj["Key"] for page in pages for obj in page.get("Contents", []))

    def download_url(self, key: str, content_type: str, seconds: int) -> str:
        """A GET of this one object for `seconds`, answered with `content_type` whatever a client asks."""
        params = {
            "Bucket": self._bucket,
            "Key": check_key(key),
            "ResponseContentType": content_type,
            "ResponseCacheControl": f"private, max-age={seconds}",
        }
        url: str = self._client.generate_presigned_url("get_object", Params=params, ExpiresIn=seconds)
        return url

    def upload_form(
        self, key: str, content_type: str, max_bytes: int, seconds: int, tags: dict[str, str]
    ) -> UploadForm:
        """A POST of at most `max_bytes` to exactly this key, for `seconds`. The policy pins the key, the type
        and the tags, so a client can neither write elsewhere nor drop the tag a lifecycle rule reads."""
        tagging = _tagging(tags)
        fields = {"Content-Type": content_type, "tagging": tagging}
        conditions: list[Any] = [{"Content-Type": content_type}, {"tagging": tagging}]
        conditions.append(["content-length-range", 1, max_bytes])
        posted = self._client.generate_presigned_post(
            self._bucket, check_key(key), Fields=fields, Conditions=conditions, ExpiresIn=seconds
        )
        return UploadForm(url=posted["url"], fields=dict(posted["fields"]))


def _tagging(tags: dict[str, str]) -> str:
    """S3's XML form of object tags, as a POST's `tagging` field takes them."""
    pairs = "".join(f"<Tag><Key>{escape(k)}</Key><Value>{escape(v)}</Value></Tag>" for k, v in sorted(tags.items()))
    return f"<Tagging><TagSet>{pairs}</TagSet></Tagging>"
