#!/usr/bin/env python3
"""test/fuzz/gen_seeds.py: writes the seed corpus of every fuzz target
(valid protocol exchanges and config values) into corpus/<target>/.
Run once; the output is committed.  Protocol: core/context/bootstrap/store.h."""
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))
MAGIC, VER = 0x4C435354, 1
HELLO, WELCOME, GATHER, GATHER_DONE, BARRIER, BARRIER_DONE, BYE, ERROR = range(1, 9)


def msg(t, arg, payload=b""):
    return struct.pack(">IHHII", MAGIC, VER, t, arg, len(payload)) + payload


def write(target, name, data):
    d = os.path.join(here, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def chunks(conn, data):
    out = b""
    for i in range(0, len(data), 255):
        part = data[i:i + 255]
        out += bytes([conn, len(part)]) + part
    return out


secret = b"fuzz-secret"
hello = lambda r, size=2, s=secret: msg(HELLO, r, struct.pack(">I", size) + s)

# ---- store server: [conn][len][bytes]... ----
full = (chunks(0, hello(0)) + chunks(1, hello(1)) + chunks(0, msg(GATHER, 0, b"rank0 blob")) +
        chunks(1, msg(GATHER, 0, b"rank1 blob")) + chunks(0, msg(BARRIER, 1)) +
        chunks(1, msg(BARRIER, 1)) + chunks(0, msg(BYE, 0)) + chunks(1, msg(BYE, 0)))
write("fuzz_store_server", "full_job", full)
write("fuzz_store_server", "wrong_secret", chunks(0, hello(0, s=b"nope")))
write("fuzz_store_server", "duplicate_rank", chunks(0, hello(1)) + chunks(2, hello(1)))
write("fuzz_store_server", "bad_size", chunks(0, hello(0, size=3)))
write("fuzz_store_server", "mismatch", chunks(0, hello(0)) + chunks(1, hello(1)) +
      chunks(0, msg(GATHER, 0, b"x")) + chunks(1, msg(BARRIER, 0)))
write("fuzz_store_server", "oversize", chunks(0, hello(0)) +
      chunks(0, struct.pack(">IHHII", MAGIC, VER, GATHER, 0, 0xFFFFFFFF)))
write("fuzz_store_server", "die_without_bye", chunks(0, hello(0)) + chunks(1, hello(1)) +
      chunks(0, msg(GATHER, 0, b"a")))
write("fuzz_store_server", "truncated_hdr", chunks(0, msg(HELLO, 0)[:7]))

# ---- store client: [size selector][stream from the store] ----
for size in (2, 3, 4):
    host = b"fuzzhost".ljust(64, b"\0")
    hosts = struct.pack(">" + "I" * size, *([64] * size)) + host * size
    payload = b"fuzz allgather payload!\0"
    ag = struct.pack(">" + "I" * size, *([24] * size)) + payload * size
    lens = struct.pack(">" + "I" * size, *([8] * size)) + struct.pack("<Q", 11) * size
    blobs = struct.pack(">" + "I" * size, *([11] * size)) + b"hello blob!" * size
    stream = (msg(WELCOME, size) + msg(GATHER_DONE, 0, hosts) + msg(BARRIER_DONE, 1) +
              msg(GATHER_DONE, 2, ag) + msg(GATHER_DONE, 3, lens) + msg(GATHER_DONE, 4, blobs))
    write("fuzz_store_client", "ok_size%d" % size, bytes([size - 2]) + stream)
write("fuzz_store_client", "error_reply", b"\0" + msg(ERROR, 12, b"wrong job secret"))
write("fuzz_store_client", "bad_magic", b"\0" + b"XXXX" + msg(WELCOME, 2)[4:])

# ---- config: [field index][value] ----
values = [b"3", b"0.5", b"ucx", b"sim", b"64k", b"4M", b"1g", b"yes", b"off", b"auto",
          b"127.0.0.1:5000", b"[::1]:80", b"-1", b"99999999999999999999", b"1e309", b"nan",
          b"18446744073709551615k", b"", b" 7", b"a" * 300]
for i in range(40):
    write("fuzz_config", "v%02d" % i, bytes([i]) + values[i % len(values)])

# ---- lincoll-ecd auth: [0 keyring | 1 handshake | 2 caps + request line] ----
SECRET = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
write("fuzz_ecd_auth", "keyring", b"\0# keys\nkey cluster 1 cluster " + SECRET.encode() +
      b"\nkey app 2 write " + SECRET.encode() + b"\n")
write("fuzz_ecd_auth", "keyring_bad", b"\0key app 0 root zz\n")
write("fuzz_ecd_auth", "plaintext", b"\1GET obj\n")
for caps, line in ((1, b"GET obj"), (3, b"PUT obj 5"), (7, b"REPAIR 2"), (15, b"STORE a 0 1 1 FROM 1 x"),
                   (1, b"app/12"), (0, b"cluster/1 PING")):
    write("fuzz_ecd_auth", "req_%d_%s" % (caps, line.split()[0].decode().replace("/", "_")),
          b"\2" + bytes([caps]) + line)


def client_hello(identity):
    """A TLS 1.3 ClientHello with an external PSK, from openssl s_client
    (the handshake seeds; skipped where openssl is missing)."""
    import socket
    import subprocess
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    p = subprocess.Popen(["openssl", "s_client", "-tls1_3", "-quiet", "-connect",
                          "127.0.0.1:%d" % srv.getsockname()[1], "-psk_identity", identity,
                          "-psk", SECRET, "-ciphersuites", "TLS_AES_128_GCM_SHA256"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    c, _ = srv.accept()
    c.settimeout(5)
    data = c.recv(65536)
    c.close()
    p.wait()
    srv.close()
    return data


try:
    for ident in ("app/1", "cluster/1", "nobody/1"):
        write("fuzz_ecd_auth", "hello_" + ident.replace("/", "_"), b"\1" + client_hello(ident))
except OSError:
    print("gen_seeds: no openssl: the fuzz_ecd_auth handshake seeds are left out")
