"""Independent reference for the backup archive tests: Python's tarfile (and `cryptography` for
SecureTar v2), the library the original writes and reads its backups with.

Reads one JSON request on stdin, answers one JSON object on stdout. Byte strings are hex.
"""
import hashlib
import io
import json
import os
import sys
import tarfile
import time

TYPES = {
    tarfile.REGTYPE: "file", tarfile.AREGTYPE: "file", tarfile.DIRTYPE: "directory",
    tarfile.SYMTYPE: "symlink", tarfile.LNKTYPE: "hardlink", tarfile.CHRTYPE: "character",
    tarfile.BLKTYPE: "block", tarfile.FIFOTYPE: "fifo",
}
FLAGS = {v: k for k, v in TYPES.items() if k != tarfile.AREGTYPE}


def describe(tar):
    out = []
    for m in tar:
        item = {
            "name": m.name, "type": TYPES.get(m.type, repr(m.type)), "mode": m.mode, "mtime": m.mtime,
            "size": m.size, "linkname": m.linkname, "uid": m.uid, "gid": m.gid,
            "uname": m.uname, "gname": m.gname, "pax": m.pax_headers,
        }
        # huge (sparse) test members are listed, not read
        if m.isfile() and m.size < 64 * 1024 * 1024:
            f = tar.extractfile(m)
            item["sha256"] = hashlib.sha256(f.read()).hexdigest() if f else None
        out.append(item)
    return out


def aes_key(password):
    key = password.encode()
    for _ in range(100):
        key = hashlib.sha256(key).digest()
    return key[:16]


def aes_iv(key, salt):
    iv = key + salt
    for _ in range(100):
        iv = hashlib.sha256(iv).digest()
    return iv[:16]


def securetar_v2_decrypt(data, password):
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    if data[:9] == b"SecureTar":
        salt, body = data[32:48], data[48:]
    else:
        salt, body = data[:16], data[16:]
    key = aes_key(password)
    dec = Cipher(algorithms.AES(key), modes.CBC(aes_iv(key, salt))).decryptor()
    plain = dec.update(body) + dec.finalize()
    return plain[: -plain[-1]]


def securetar_v2_encrypt(plain, password):
    from cryptography.hazmat.primitives import padding
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    salt = os.urandom(16)
    key = aes_key(password)
    padder = padding.PKCS7(128).padder()
    enc = Cipher(algorithms.AES(key), modes.CBC(aes_iv(key, salt))).encryptor()
    body = enc.update(padder.update(plain) + padder.finalize()) + enc.finalize()
    header = b"SecureTar\x02" + bytes(6) + len(plain).to_bytes(8, "big") + bytes(8) + salt
    return header + body


def op_list(req):
    mode = req.get("mode", "r:*")
    if "hex" in req:
        with tarfile.open(fileobj=io.BytesIO(bytes.fromhex(req["hex"])), mode=mode) as tar:
            return {"members": describe(tar)}
    with tarfile.open(req["path"], mode) as tar:
        return {"members": describe(tar)}


def op_inner(req):
    """Lists an inner archive of a backup: extracted by name, decrypted (v2) when a password is given."""
    with tarfile.open(req["path"], "r:") as outer:
        data = outer.extractfile(req["member"]).read()
    if req.get("password"):
        data = securetar_v2_decrypt(data, req["password"])
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz" if req["compressed"] else "r:") as tar:
        return {"members": describe(tar)}


def op_extract(req):
    with tarfile.open(req["path"], req.get("mode", "r:*")) as tar:
        tar.extractall(req["dest"], filter="tar")
    return {"ok": True}


def op_write(req):
    """A tar written by Python from entry descriptions (format pax or gnu)."""
    fmt = tarfile.GNU_FORMAT if req.get("format") == "gnu" else tarfile.PAX_FORMAT
    with tarfile.open(req["path"], req.get("mode", "w"), format=fmt) as tar:
        for e in req["entries"]:
            info = tarfile.TarInfo(e["name"])
            info.type = FLAGS[e.get("type", "file")]
            info.mode = e.get("mode", 0o644)
            info.mtime = e.get("mtime", 0)
            info.linkname = e.get("linkname", "")
            data = bytes.fromhex(e.get("data", ""))
            info.size = len(data) if info.type == tarfile.REGTYPE else 0
            tar.addfile(info, io.BytesIO(data) if info.size else None)
    return {"ok": True}


def inner_tar(sources, compressed):
    """An inner archive the original's way: tarfile.add of folders and generated files."""
    buf = io.BytesIO()
    kwargs = {"compresslevel": 6} if compressed else {}
    with tarfile.open(fileobj=buf, mode="w:gz" if compressed else "w:", **kwargs) as tar:
        for s in sources:
            if "path" in s:
                tar.add(s["path"], arcname=s["arcname"])
            else:
                data = s["text"].encode()
                info = tarfile.TarInfo(s["name"])
                info.size = len(data)
                info.mtime = time.time()
                tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def op_make_backup(req):
    """A whole backup in the original's layout: PAX outer tar, inner parts, backup.json last."""
    compressed = req["compressed"]
    password = req.get("password")
    with tarfile.open(req["path"], "w:", format=tarfile.PAX_FORMAT) as outer:
        for part in req["parts"]:
            data = inner_tar(part["sources"], compressed)
            if password:
                data = securetar_v2_encrypt(data, password)
            info = tarfile.TarInfo(part["name"])
            info.size = len(data)
            info.mtime = time.time()
            outer.addfile(info, io.BytesIO(data))
        raw = req["meta"].encode()
        info = tarfile.TarInfo(req.get("meta_name", "./backup.json"))
        info.size = len(raw)
        info.mtime = int(time.time())
        outer.addfile(info, io.BytesIO(raw))
    return {"ok": True}


OPS = {"list": op_list, "inner": op_inner, "extract": op_extract, "write": op_write, "make_backup": op_make_backup}

if __name__ == "__main__":
    request = json.load(sys.stdin)
    try:
        print(json.dumps(OPS[request["op"]](request)))
    except Exception as err:  # the test reports it
        print(json.dumps({"error": f"{type(err).__name__}: {err}"}))
        sys.exit(1)
