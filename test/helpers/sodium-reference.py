"""Independent reference for the SecureTar tests: libsodium through ctypes.

Reads one JSON request on stdin, answers one JSON object on stdout. Byte strings are hex;
large payloads go through files (paths). Exit code 3 when libsodium cannot be loaded.
"""
import ctypes
import ctypes.util
import json
import os
import struct
import sys


def load():
    names = ["libsodium.so.23", ctypes.util.find_library("sodium") or "libsodium.so"]
    for name in names:
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        if lib.sodium_init() < 0:
            break
        return lib
    print(json.dumps({"error": "libsodium not found"}))
    sys.exit(3)


S = load()
ull = ctypes.c_ulonglong
STATE = S.crypto_secretstream_xchacha20poly1305_statebytes()
ABYTES = 17
CHUNK = 1024 * 1024
TAG_MESSAGE, TAG_FINAL = 0, 3


def pwhash(password, salt, opslimit=8, memlimit=16 * 1024 * 1024, outlen=32):
    out = ctypes.create_string_buffer(outlen)
    ALG_ARGON2ID13 = 2
    if S.crypto_pwhash(out, ull(outlen), password, ull(len(password)), salt, ull(opslimit), ctypes.c_size_t(memlimit), ctypes.c_int(ALG_ARGON2ID13)) != 0:
        raise RuntimeError("crypto_pwhash failed")
    return out.raw


def blake2b(message, key, salt, personal, outlen):
    out = ctypes.create_string_buffer(outlen)
    salt = salt.ljust(16, b"\0")
    personal = personal.ljust(16, b"\0")
    if S.crypto_generichash_blake2b_salt_personal(out, ctypes.c_size_t(outlen), message, ull(len(message)), key or None, ctypes.c_size_t(len(key)), salt, personal) != 0:
        raise RuntimeError("blake2b failed")
    return out.raw


def init_push(key):
    state = ctypes.create_string_buffer(STATE)
    header = ctypes.create_string_buffer(24)
    S.crypto_secretstream_xchacha20poly1305_init_push(state, header, key)
    return state, header.raw


def init_pull(key, header):
    state = ctypes.create_string_buffer(STATE)
    if S.crypto_secretstream_xchacha20poly1305_init_pull(state, header, key) != 0:
        raise RuntimeError("init_pull failed")
    return state


def push(state, message, tag):
    out = ctypes.create_string_buffer(len(message) + ABYTES)
    outlen = ull(0)
    S.crypto_secretstream_xchacha20poly1305_push(state, out, ctypes.byref(outlen), message, ull(len(message)), None, ull(0), ctypes.c_ubyte(tag))
    return out.raw[: outlen.value]


def pull(state, chunk):
    out = ctypes.create_string_buffer(max(1, len(chunk) - ABYTES))
    outlen = ull(0)
    tag = ctypes.c_ubyte(0)
    if S.crypto_secretstream_xchacha20poly1305_pull(state, out, ctypes.byref(outlen), ctypes.byref(tag), chunk, ull(len(chunk)), None, ull(0)) != 0:
        return None, None
    return out.raw[: outlen.value], tag.value


def personal_key(root_key, salt):
    return blake2b(b"", root_key, salt, b"SecureTarv3", 32)


def securetar_encrypt_v3(password, plain, root_salt, validation_salt):
    """SecureTar v3 written from the format description (supervisor-wire 5.5) with libsodium."""
    root_key = pwhash(password, root_salt)
    validation_key = personal_key(root_key, validation_salt)
    derivation_salt = os.urandom(16)
    state, header = init_push(personal_key(root_key, derivation_salt))
    out = [b"SecureTar" + bytes([3]) + bytes(6), struct.pack(">Q8x", len(plain)), root_salt, validation_salt, validation_key, derivation_salt, header]
    chunks = [plain[i : i + CHUNK] for i in range(0, len(plain), CHUNK)] or [b""]
    for index, chunk in enumerate(chunks):
        out.append(push(state, chunk, TAG_FINAL if index == len(chunks) - 1 else TAG_MESSAGE))
    return b"".join(out)


def securetar_decrypt_v3(password, data):
    if data[:9] != b"SecureTar" or data[9] != 3:
        return {"error": "not v3"}
    (size,) = struct.unpack(">Q", data[16:24])
    init = data[32:136]
    root_key = pwhash(password, init[0:16])
    if personal_key(root_key, init[16:32]) != init[32:64]:
        return {"error": "invalid password"}
    state = init_pull(personal_key(root_key, init[64:80]), init[80:104])
    body = data[136:]
    plain = []
    at = 0
    while True:
        chunk = body[at : at + CHUNK + ABYTES]
        at += len(chunk)
        message, tag = pull(state, chunk)
        if message is None:
            return {"error": "authentication failed"}
        plain.append(message)
        if tag == TAG_FINAL:
            break
        if at >= len(body):
            return {"error": "missing final tag"}
    if at != len(body):
        return {"error": "data after final tag"}
    plain = b"".join(plain)
    if len(plain) != size:
        return {"error": "size mismatch"}
    return {"plain": plain}


def main():
    req = json.load(sys.stdin)
    op = req["op"]
    h = bytes.fromhex
    if op == "pwhash":
        res = {"out": pwhash(h(req["password"]), h(req["salt"]), req["opslimit"], req["memlimit"], req["outlen"]).hex()}
    elif op == "blake2b":
        res = {"out": blake2b(h(req["message"]), h(req["key"]), h(req["salt"]), h(req["personal"]), req["outlen"]).hex()}
    elif op == "push":
        state, header = init_push(h(req["key"]))
        res = {"header": header.hex(), "chunks": [push(state, h(m), t).hex() for m, t in req["messages"]]}
    elif op == "pull":
        state = init_pull(h(req["key"]), h(req["header"]))
        messages = []
        for c in req["chunks"]:
            m, t = pull(state, h(c))
            if m is None:
                messages.append(None)
                break
            messages.append([m.hex(), t])
        res = {"messages": messages}
    elif op == "securetar_encrypt_v3":
        with open(req["in"], "rb") as f:
            plain = f.read()
        with open(req["out"], "wb") as f:
            f.write(securetar_encrypt_v3(req["password"].encode(), plain, h(req["root_salt"]), h(req["validation_salt"])))
        res = {"ok": True}
    elif op == "securetar_decrypt_v3":
        with open(req["in"], "rb") as f:
            result = securetar_decrypt_v3(req["password"].encode(), f.read())
        if "plain" in result:
            with open(req["out"], "wb") as f:
                f.write(result["plain"])
            res = {"ok": True}
        else:
            res = result
    else:
        res = {"error": "unknown op " + op}
    print(json.dumps(res))


main()
