//! TLS interop test: rustls, with every AES-GCM record sealed and opened by
//! aes-gcm-ct, against OpenSSL's `s_server` and `s_client` on 127.0.0.1.
//!
//! The crypto provider is rustls' `ring` provider (key exchange,
//! signatures, hashes, HKDF/PRF) with its cipher suites replaced by the
//! AES-GCM suites of [`aead`]: TLS 1.3 `TLS_AES_128_GCM_SHA256` and
//! `TLS_AES_256_GCM_SHA384`, TLS 1.2 `ECDHE-{ECDSA,RSA}-AES{128,256}-GCM`.
//! No other suite is offered, so a completed handshake used ours.
//!
//! For each suite, in each mode (the automatic aes-gcm-ct path, then the
//! software path forced at run time):
//! 1. our client against `openssl s_server`: handshake, 1 MiB each way,
//!    compared byte for byte;
//! 2. `openssl s_client` against our server: the same;
//! 3. a relay flips one byte of an application-data record from
//!    `s_server` to our client: our open must reject it (rustls
//!    `DecryptError`, and our rejection counter moves);
//! 4. the relay flips one from our client to `s_server`: OpenSSL must
//!    report a bad record MAC (our tags are checked by a second
//!    implementation);
//! 5. the relay flips one from `s_client` to our server: our open must
//!    reject it.
//!
//! Each transfer must also move our seal and open counters by at least the
//! records 1 MiB needs, so a run where rustls' own AES-GCM carried the
//! data fails. Certificates (a CA, an ECDSA P-256 and an RSA-2048 server
//! certificate for `localhost`) are made by `openssl` at start in a
//! scratch folder.
//!
//! usage: tls-interop [--openssl PATH] [--mode auto|soft|both]

mod aead;
mod relay;

use aead::{Counts, Mode, Tls12Gcm, Tls13Gcm};
use relay::{Flip, Relay};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::{
    AlertDescription, CipherSuite, ClientConfig, ClientConnection, RootCertStore, ServerConfig,
    ServerConnection, StreamOwned, SupportedCipherSuite, SupportedProtocolVersion,
};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitCode, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Bytes sent each way per connection.
const TRANSFER: usize = 1 << 20;
/// Records a transfer needs at least (16 KiB of plaintext per record).
const MIN_RECORDS: u64 = (TRANSFER / (1 << 14)) as u64;
/// Socket and process timeout (a connection takes well under a second).
const TIMEOUT: Duration = Duration::from_secs(20);
/// The whole run's budget: past it the remaining connections are not
/// started and the run fails, so a hanging peer cannot eat CI's time.
const BUDGET: Duration = Duration::from_secs(300);
/// How long an OpenSSL process may take to exit once our side is done.
const EXIT_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Clone, Copy, PartialEq, Eq)]
enum CertKind {
    Ecdsa,
    Rsa,
}

struct Suite {
    /// The IANA name.
    name: &'static str,
    /// OpenSSL's name of it.
    openssl: &'static str,
    tls13: bool,
    cert: CertKind,
    /// rustls' ring suite whose key schedule, hash and key exchange we keep.
    ring: SupportedCipherSuite,
    key_len: usize,
}

fn suites() -> Vec<Suite> {
    use rustls::crypto::ring::cipher_suite as r;
    vec![
        Suite {
            name: "TLS13_AES_128_GCM_SHA256",
            openssl: "TLS_AES_128_GCM_SHA256",
            tls13: true,
            cert: CertKind::Ecdsa,
            ring: r::TLS13_AES_128_GCM_SHA256,
            key_len: 16,
        },
        Suite {
            name: "TLS13_AES_256_GCM_SHA384",
            openssl: "TLS_AES_256_GCM_SHA384",
            tls13: true,
            cert: CertKind::Rsa,
            ring: r::TLS13_AES_256_GCM_SHA384,
            key_len: 32,
        },
        Suite {
            name: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
            openssl: "ECDHE-ECDSA-AES128-GCM-SHA256",
            tls13: false,
            cert: CertKind::Ecdsa,
            ring: r::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
            key_len: 16,
        },
        Suite {
            name: "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
            openssl: "ECDHE-ECDSA-AES256-GCM-SHA384",
            tls13: false,
            cert: CertKind::Ecdsa,
            ring: r::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
            key_len: 32,
        },
        Suite {
            name: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
            openssl: "ECDHE-RSA-AES128-GCM-SHA256",
            tls13: false,
            cert: CertKind::Rsa,
            ring: r::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
            key_len: 16,
        },
        Suite {
            name: "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
            openssl: "ECDHE-RSA-AES256-GCM-SHA384",
            tls13: false,
            cert: CertKind::Rsa,
            ring: r::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
            key_len: 32,
        },
    ]
}

impl Suite {
    /// The ring suite with its AEAD replaced by ours.
    fn ours(&self) -> Result<SupportedCipherSuite, String> {
        use rustls::CipherSuiteCommon;
        let common = |c: &CipherSuiteCommon| CipherSuiteCommon {
            suite: c.suite,
            hash_provider: c.hash_provider,
            confidentiality_limit: c.confidentiality_limit,
        };
        match self.ring {
            SupportedCipherSuite::Tls13(s) if self.tls13 => Ok(SupportedCipherSuite::Tls13(
                Box::leak(Box::new(rustls::Tls13CipherSuite {
                    common: common(&s.common),
                    hkdf_provider: s.hkdf_provider,
                    aead_alg: Box::leak(Box::new(Tls13Gcm {
                        key_len: self.key_len,
                    })),
                    quic: None,
                })),
            )),
            SupportedCipherSuite::Tls12(s) if !self.tls13 => Ok(SupportedCipherSuite::Tls12(
                Box::leak(Box::new(rustls::Tls12CipherSuite {
                    common: common(&s.common),
                    prf_provider: s.prf_provider,
                    kx: s.kx,
                    sign: s.sign,
                    aead_alg: Box::leak(Box::new(Tls12Gcm {
                        key_len: self.key_len,
                    })),
                })),
            )),
            _ => Err(format!("{}: protocol version mismatch", self.name)),
        }
    }

    fn version(&self) -> &'static SupportedProtocolVersion {
        if self.tls13 {
            &rustls::version::TLS13
        } else {
            &rustls::version::TLS12
        }
    }

    /// The `openssl s_server` / `s_client` options that allow only this
    /// suite.
    fn openssl_args(&self) -> Vec<&'static str> {
        if self.tls13 {
            vec!["-tls1_3", "-ciphersuites", self.openssl]
        } else {
            vec!["-tls1_2", "-cipher", self.openssl]
        }
    }

    fn iana(&self) -> CipherSuite {
        match self.ring {
            SupportedCipherSuite::Tls13(s) => s.common.suite,
            SupportedCipherSuite::Tls12(s) => s.common.suite,
        }
    }
}

/// The certificates and everything a connection needs.
struct Ctx {
    openssl: PathBuf,
    dir: PathBuf,
    ca: CertificateDer<'static>,
    roots: Arc<RootCertStore>,
}

impl Ctx {
    fn cert(&self, k: CertKind) -> (PathBuf, PathBuf) {
        let n = match k {
            CertKind::Ecdsa => "ecdsa",
            CertKind::Rsa => "rsa",
        };
        (
            self.dir.join(format!("{n}.pem")),
            self.dir.join(format!("{n}.key")),
        )
    }

    fn openssl(&self) -> Command {
        let mut c = Command::new(&self.openssl);
        c.current_dir(&self.dir);
        c
    }
}

fn run_openssl(ctx: &Ctx, args: &[&str]) -> Result<(), String> {
    let out = ctx
        .openssl()
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", ctx.openssl.display()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "openssl {} failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// A CA and two server certificates for `localhost` signed by it (webpki
/// refuses a CA certificate as a server's own, so no self-signed leaf).
fn make_certs(openssl: &Path, dir: &Path) -> Result<Ctx, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut ctx = Ctx {
        openssl: openssl.to_owned(),
        dir: dir.to_owned(),
        ca: CertificateDer::from(Vec::new()),
        roots: Arc::new(RootCertStore::empty()),
    };
    let ext = "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost\n";
    std::fs::write(dir.join("leaf.ext"), ext).map_err(|e| format!("leaf.ext: {e}"))?;
    run_openssl(
        &ctx,
        &[
            "req",
            "-x509",
            "-new",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-subj",
            "/CN=tls-interop test CA",
            "-days",
            "2",
        ],
    )?;
    for (name, newkey) in [
        ("ecdsa", ["ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"]),
        ("rsa", ["rsa", "-pkeyopt", "rsa_keygen_bits:2048"]),
    ] {
        let key = format!("{name}.key");
        let csr = format!("{name}.csr");
        let pem = format!("{name}.pem");
        run_openssl(
            &ctx,
            &[
                "req",
                "-new",
                "-newkey",
                newkey[0],
                newkey[1],
                newkey[2],
                "-nodes",
                "-keyout",
                &key,
                "-out",
                &csr,
                "-subj",
                "/CN=localhost",
            ],
        )?;
        run_openssl(
            &ctx,
            &[
                "x509",
                "-req",
                "-in",
                &csr,
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca.key",
                "-set_serial",
                if name == "rsa" { "3" } else { "2" },
                "-days",
                "2",
                "-extfile",
                "leaf.ext",
                "-out",
                &pem,
            ],
        )?;
    }
    ctx.ca =
        CertificateDer::from_pem_file(dir.join("ca.pem")).map_err(|e| format!("ca.pem: {e}"))?;
    let mut roots = RootCertStore::empty();
    roots
        .add(ctx.ca.clone())
        .map_err(|e| format!("ca.pem as a trust anchor: {e}"))?;
    ctx.roots = Arc::new(roots);
    Ok(ctx)
}

fn provider(suite: &SupportedCipherSuite) -> Arc<CryptoProvider> {
    let mut p = rustls::crypto::ring::default_provider();
    p.cipher_suites = vec![*suite];
    Arc::new(p)
}

fn client_config(
    ctx: &Ctx,
    s: &Suite,
    ours: &SupportedCipherSuite,
) -> Result<Arc<ClientConfig>, String> {
    let c = ClientConfig::builder_with_provider(provider(ours))
        .with_protocol_versions(&[s.version()])
        .map_err(|e| format!("client config: {e}"))?
        .with_root_certificates(ctx.roots.clone())
        .with_no_client_auth();
    Ok(Arc::new(c))
}

fn server_config(
    ctx: &Ctx,
    s: &Suite,
    ours: &SupportedCipherSuite,
) -> Result<Arc<ServerConfig>, String> {
    let (pem, key) = ctx.cert(s.cert);
    let leaf =
        CertificateDer::from_pem_file(&pem).map_err(|e| format!("{}: {e}", pem.display()))?;
    let key = PrivateKeyDer::from_pem_file(&key).map_err(|e| format!("{}: {e}", key.display()))?;
    let c = ServerConfig::builder_with_provider(provider(ours))
        .with_protocol_versions(&[s.version()])
        .map_err(|e| format!("server config: {e}"))?
        .with_no_client_auth()
        .with_single_cert(vec![leaf, ctx.ca.clone()], key)
        .map_err(|e| format!("server certificate: {e}"))?;
    Ok(Arc::new(c))
}

/// Deterministic, distinct data for each direction and connection.
fn data(seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    let mut v = Vec::with_capacity(TRANSFER);
    while v.len() < TRANSFER {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.extend_from_slice(&x.to_le_bytes());
    }
    v.truncate(TRANSFER);
    v
}

/// An OpenSSL process, killed if still running when dropped.
struct Proc {
    child: Child,
    what: String,
    stderr: PathBuf,
}

impl Proc {
    fn spawn(
        mut cmd: Command,
        what: String,
        stderr: PathBuf,
    ) -> Result<(Proc, ChildStdin, ChildStdout), String> {
        let err =
            std::fs::File::create(&stderr).map_err(|e| format!("{}: {e}", stderr.display()))?;
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(err)
            .spawn()
            .map_err(|e| format!("cannot start {what}: {e}"))?;
        let (Some(i), Some(o)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("{what}: no stdio pipes"));
        };
        Ok((
            Proc {
                child,
                what,
                stderr,
            },
            i,
            o,
        ))
    }

    fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Wait until it exits, at most [`EXIT_TIMEOUT`] (it is only waited
    /// for once our side is done).
    fn wait(&mut self) -> Result<std::process::ExitStatus, String> {
        let deadline = Instant::now() + EXIT_TIMEOUT;
        loop {
            if let Some(s) = self.exited() {
                return Ok(s);
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "{} did not exit within {EXIT_TIMEOUT:?} after our side was done: {}",
                    self.what,
                    self.stderr().trim()
                ));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if self.exited().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Read `out` to its end in a thread; `count` follows the bytes read.
fn collect(mut out: ChildStdout, count: Arc<AtomicUsize>) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut v = Vec::with_capacity(TRANSFER);
        let mut buf = vec![0u8; 1 << 16];
        loop {
            match out.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    v.extend_from_slice(&buf[..n]);
                    count.store(v.len(), Ordering::SeqCst);
                }
            }
        }
        v
    })
}

/// Write `data` into `stdin` in a thread, then close it.
fn feed(mut stdin: ChildStdin, data: Vec<u8>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        // A peer that died (the tamper runs) makes this fail: the checks
        // look at what arrived, not at this write.
        let _ = stdin.write_all(&data);
    })
}

fn free_port() -> Result<u16, String> {
    let l = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("bind: {e}"))?;
    l.local_addr()
        .map(|a| a.port())
        .map_err(|e| format!("local_addr: {e}"))
}

/// The rustls error inside an I/O error, if any.
fn tls_error(e: &std::io::Error) -> Option<&rustls::Error> {
    e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>())
}

fn describe(e: &std::io::Error) -> String {
    match tls_error(e) {
        Some(t) => format!("rustls: {t}"),
        None => format!("I/O: {e}"),
    }
}

/// What one of our endpoints did.
#[derive(Default)]
struct Side {
    received: Vec<u8>,
    suite: Option<CipherSuite>,
    error: Option<std::io::Error>,
}

/// Our client: send `up`, receive [`TRANSFER`] bytes, close.
fn our_client(config: Arc<ClientConfig>, addr: SocketAddr, up: Vec<u8>) -> Side {
    endpoint(|side| {
        let tcp = connect(addr)?;
        let name =
            ServerName::try_from("localhost").map_err(|e| std::io::Error::other(e.to_string()))?;
        let conn = ClientConnection::new(config, name).map_err(std::io::Error::other)?;
        let mut tls = StreamOwned::new(conn, tcp);
        tls.write_all(&up)?;
        tls.flush()?;
        side.suite = tls.conn.negotiated_cipher_suite().map(|s| s.suite());
        let r;
        (side.received, r) = receive(&mut tls);
        r?;
        tls.conn.send_close_notify();
        tls.flush()?;
        drain(&mut tls);
        Ok(())
    })
}

/// Our server: receive [`TRANSFER`] bytes, send `down`, close.
fn our_server(config: Arc<ServerConfig>, tcp: TcpStream, down: Vec<u8>) -> Side {
    endpoint(|side| {
        tcp.set_read_timeout(Some(TIMEOUT))?;
        tcp.set_write_timeout(Some(TIMEOUT))?;
        let conn = ServerConnection::new(config).map_err(std::io::Error::other)?;
        let mut tls = StreamOwned::new(conn, tcp);
        let r;
        (side.received, r) = receive(&mut tls);
        side.suite = tls.conn.negotiated_cipher_suite().map(|s| s.suite());
        r?;
        tls.write_all(&down)?;
        tls.flush()?;
        tls.conn.send_close_notify();
        tls.flush()?;
        drain(&mut tls);
        Ok(())
    })
}

/// Run one of our endpoints: what it received and negotiated, and the
/// error that ended it, if any.
fn endpoint(run: impl FnOnce(&mut Side) -> std::io::Result<()>) -> Side {
    let mut side = Side::default();
    side.error = run(&mut side).err();
    side
}

/// Read up to [`TRANSFER`] bytes, until the peer closes or an error: what
/// arrived, and the error if any.
fn receive(tls: &mut impl Read) -> (Vec<u8>, std::io::Result<()>) {
    let mut got = vec![0u8; TRANSFER];
    let mut n = 0;
    let r = loop {
        if n == TRANSFER {
            break Ok(());
        }
        match tls.read(&mut got[n..]) {
            Ok(0) => break Ok(()),
            Ok(k) => n += k,
            Err(e) => break Err(e),
        }
    };
    got.truncate(n);
    (got, r)
}

/// After our close_notify: read until the peer closes too, so closing our
/// socket cannot reset the connection under data the peer has not read.
fn drain(tls: &mut impl Read) {
    let mut buf = [0u8; 4096];
    while let Ok(n) = tls.read(&mut buf) {
        if n == 0 {
            break;
        }
    }
}

fn connect(addr: SocketAddr) -> std::io::Result<TcpStream> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match TcpStream::connect(addr) {
            Ok(s) => {
                s.set_read_timeout(Some(TIMEOUT))?;
                s.set_write_timeout(Some(TIMEOUT))?;
                return Ok(s);
            }
            Err(e)
                if e.kind() == std::io::ErrorKind::ConnectionRefused
                    && Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(e),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Scenario {
    /// Our client, `openssl s_server`.
    Client,
    /// `openssl s_client`, our server.
    Server,
    /// Our client, a byte flipped on its way from `s_server` to us.
    ClientTamperIn,
    /// Our client, a byte flipped on its way from us to `s_server`.
    ClientTamperOut,
    /// Our server, a byte flipped on its way from `s_client` to us.
    ServerTamperIn,
}

impl Scenario {
    const ALL: [Scenario; 5] = [
        Scenario::Client,
        Scenario::Server,
        Scenario::ClientTamperIn,
        Scenario::ClientTamperOut,
        Scenario::ServerTamperIn,
    ];

    fn what(self) -> &'static str {
        match self {
            Scenario::Client => "rustls client <-> openssl s_server, 1 MiB each way",
            Scenario::Server => "openssl s_client <-> rustls server, 1 MiB each way",
            Scenario::ClientTamperIn => "s_server -> tampered record -> rustls client",
            Scenario::ClientTamperOut => "rustls client -> tampered record -> s_server",
            Scenario::ServerTamperIn => "s_client -> tampered record -> rustls server",
        }
    }
}

/// One connection; `Ok` carries the line to print.
fn run_one(
    ctx: &Ctx,
    s: &Suite,
    ours: &SupportedCipherSuite,
    sc: Scenario,
    seed: u64,
) -> Result<String, String> {
    let up = data(seed);
    let down = data(seed ^ 0x9e37_79b9_7f4a_7c15);
    let before = aead::counts();
    let c = Conn {
        ctx,
        s,
        ours,
        sc,
        tag: format!("{}-{:?}-{seed}", s.name, sc),
        up,
        down,
    };
    let run = match sc {
        Scenario::Client | Scenario::ClientTamperIn | Scenario::ClientTamperOut => run_client(&c)?,
        Scenario::Server | Scenario::ServerTamperIn => run_server(&c)?,
    };
    verdict(&c, run, before)
}

/// One connection to make: the suite, the scenario, and the data each way
/// (`up` from the client, `down` from the server).
struct Conn<'a> {
    ctx: &'a Ctx,
    s: &'a Suite,
    ours: &'a SupportedCipherSuite,
    sc: Scenario,
    /// Names this connection's files in the scratch folder.
    tag: String,
    up: Vec<u8>,
    down: Vec<u8>,
}

/// What one connection left behind, from either side.
struct Run {
    /// Our endpoint ("our client" / "our server") and OpenSSL's.
    ours: &'static str,
    peer: &'static str,
    side: Side,
    /// What the OpenSSL peer received (its stdout), its stderr and exit.
    peer_got: Vec<u8>,
    stderr: String,
    status: std::process::ExitStatus,
    /// The relay's account of the record it flipped (tamper scenarios).
    relayed: Result<Option<String>, String>,
}

impl Run {
    /// Gather what a connection left behind once the peer `proc` has
    /// ended (`status`): our side's account, the peer's received data
    /// (`reader`), its stderr, and the relay's account.
    fn gather(
        names: [&'static str; 2],
        side: Side,
        reader: JoinHandle<Vec<u8>>,
        proc: &Proc,
        relay: Option<Relay>,
        status: Result<std::process::ExitStatus, String>,
    ) -> Result<Run, String> {
        let peer_got = reader.join().map_err(|_| "reader thread panicked")?;
        Ok(Run {
            ours: names[0],
            peer: names[1],
            side,
            peer_got,
            stderr: proc.stderr(),
            relayed: relay.map(Relay::finish).transpose(),
            status: status?,
        })
    }
}

/// Our client against `openssl s_server` (through a flipping relay in the
/// client tamper scenarios): `up` from us, `down` from s_server.
fn run_client(c: &Conn<'_>) -> Result<Run, String> {
    let Conn {
        ctx, s, ours, sc, ..
    } = *c;
    let config = client_config(ctx, s, ours)?;
    let (mut proc, stdin, stdout, port) = start_s_server(ctx, s, &c.tag)?;
    let got = Arc::new(AtomicUsize::new(0));
    let reader = collect(stdout, got.clone());
    let server: SocketAddr = ([127, 0, 0, 1], port).into();
    let flip = match sc {
        Scenario::ClientTamperIn => Some(Flip::ToClient),
        Scenario::ClientTamperOut => Some(Flip::ToServer),
        _ => None,
    };
    let relay = match flip {
        Some(f) => Some(Relay::start(server, f, TIMEOUT)?),
        None => None,
    };
    let target = relay.as_ref().map_or(server, |r| r.addr);
    let client = {
        let up = c.up.clone();
        std::thread::spawn(move || our_client(config, target, up))
    };
    // s_server sends its 1 MiB once ours has arrived, so neither
    // side writes while the other is blocked writing.
    let deadline = Instant::now() + TIMEOUT;
    let mut stdin = Some(stdin);
    let mut feeder = None;
    while !client.is_finished() && Instant::now() < deadline {
        if got.load(Ordering::SeqCst) >= TRANSFER
            && let Some(i) = stdin.take()
        {
            feeder = Some(feed(i, c.down.clone()));
        }
        if proc.exited().is_some() && feeder.is_none() && got.load(Ordering::SeqCst) < TRANSFER {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let side = client.join().map_err(|_| "client thread panicked")?;
    drop(stdin);
    let status = proc.wait();
    if let Some(f) = feeder {
        let _ = f.join();
    }
    Run::gather(
        ["our client", "s_server"],
        side,
        reader,
        &proc,
        relay,
        status,
    )
}

/// `openssl s_client` against our server (through a flipping relay in
/// the server tamper scenario): `up` from s_client, `down` from us.
fn run_server(c: &Conn<'_>) -> Result<Run, String> {
    let Conn {
        ctx, s, ours, sc, ..
    } = *c;
    let config = server_config(ctx, s, ours)?;
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("bind: {e}"))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("local_addr: {e}"))?;
    let relay = match sc {
        Scenario::ServerTamperIn => Some(Relay::start(addr, Flip::ToServer, TIMEOUT)?),
        _ => None,
    };
    let target = relay.as_ref().map_or(addr, |r| r.addr);
    let mut cmd = ctx.openssl();
    cmd.args([
        "s_client",
        "-quiet",
        "-nocommands",
        "-verify_quiet",
        "-verify_return_error",
    ])
    .args([
        "-servername",
        "localhost",
        "-verify_hostname",
        "localhost",
        "-CAfile",
        "ca.pem",
    ])
    .arg("-connect")
    .arg(target.to_string())
    .args(s.openssl_args());
    let (mut proc, stdin, stdout) = Proc::spawn(
        cmd,
        "openssl s_client".into(),
        ctx.dir.join(format!("{}.stderr", c.tag)),
    )?;
    let got = Arc::new(AtomicUsize::new(0));
    let reader = collect(stdout, got);
    let feeder = feed(stdin, c.up.clone());
    let tcp = accept(&listener, &mut proc)?;
    let side = our_server(config, tcp, c.down.clone());
    let status = proc.wait();
    let _ = feeder.join();
    Run::gather(
        ["our server", "s_client"],
        side,
        reader,
        &proc,
        relay,
        status,
    )
}

/// Did connection `r` of scenario `sc` go as it must? `Ok` carries the
/// line to print.
fn verdict(c: &Conn<'_>, r: Run, before: Counts) -> Result<String, String> {
    let (ours, peer) = (r.ours, r.peer);
    match c.sc {
        Scenario::Client | Scenario::Server => {
            let (we_sent, peer_sent) = match c.sc {
                Scenario::Client => (&c.up, &c.down),
                _ => (&c.down, &c.up),
            };
            if let Some(e) = &r.side.error {
                return Err(format!(
                    "{ours}: {}; {peer}: {}",
                    describe(e),
                    r.stderr.trim()
                ));
            }
            check_suite(c.s, r.side.suite)?;
            check_same(&format!("{peer} -> {ours}"), &r.side.received, peer_sent)?;
            check_same(&format!("{ours} -> {peer}"), &r.peer_got, we_sent)?;
            if !r.status.success() {
                return Err(format!(
                    "{peer} exited with {}: {}",
                    r.status,
                    r.stderr.trim()
                ));
            }
            check_counts(aead::counts() - before)
        }
        Scenario::ClientTamperIn | Scenario::ServerTamperIn => {
            let what = r.relayed?.unwrap_or_default();
            match r.side.error.as_ref().map(|e| (tls_error(e), e)) {
                Some((Some(rustls::Error::DecryptError), _)) => {}
                Some((_, e)) => {
                    return Err(format!(
                        "{ours} failed, but not with a decrypt error: {}",
                        describe(e)
                    ));
                }
                None => return Err(format!("{ours} accepted the tampered record")),
            }
            let d = aead::counts() - before;
            if d.rejected == 0 {
                return Err("rustls reported a decrypt error but our open rejected nothing".into());
            }
            Ok(format!(
                "rejected by our open ({what}; {} of {} opens rejected)",
                d.rejected, d.opens
            ))
        }
        Scenario::ClientTamperOut => {
            let what = r.relayed?.unwrap_or_default();
            let lower = r.stderr.to_ascii_lowercase();
            if !lower.contains("bad record mac") {
                return Err(format!(
                    "{peer} did not report a bad record MAC; its stderr: {}",
                    r.stderr.trim()
                ));
            }
            if r.peer_got.len() >= TRANSFER {
                return Err(format!(
                    "{peer} passed on all the data despite the flipped byte"
                ));
            }
            let alert = match r.side.error.as_ref().map(tls_error) {
                Some(Some(rustls::Error::AlertReceived(AlertDescription::BadRecordMac))) => {
                    format!("; {ours} got its bad_record_mac alert")
                }
                _ => String::new(),
            };
            Ok(format!(
                "rejected by OpenSSL, \"bad record mac\" ({what}){alert}"
            ))
        }
    }
}

/// Start `openssl s_server` for suite `s` on a free port of 127.0.0.1 and
/// wait until it listens. The port is free when chosen but could be taken
/// before s_server binds it: then it is tried again on another one.
fn start_s_server(
    ctx: &Ctx,
    s: &Suite,
    tag: &str,
) -> Result<(Proc, ChildStdin, ChildStdout, u16), String> {
    let mut last = String::new();
    for attempt in 0..3 {
        let port = free_port()?;
        let (pem, key) = ctx.cert(s.cert);
        let mut cmd = ctx.openssl();
        cmd.args(["s_server", "-quiet", "-naccept", "1", "-accept"])
            .arg(format!("127.0.0.1:{port}"))
            .arg("-cert")
            .arg(&pem)
            .arg("-key")
            .arg(&key)
            .args(s.openssl_args());
        let (mut proc, stdin, stdout) = Proc::spawn(
            cmd,
            "openssl s_server".into(),
            ctx.dir.join(format!("{tag}-{attempt}.stderr")),
        )?;
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if listening(port) {
                return Ok((proc, stdin, stdout, port));
            }
            if let Some(st) = proc.exited() {
                last = format!(
                    "s_server exited ({st}) before listening: {}",
                    proc.stderr().trim()
                );
                break;
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "s_server did not listen on port {port} within 10 s"
                ));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    Err(last)
}

/// Is a socket listening on 127.0.0.1:`port`? From `/proc/net/tcp`, so
/// that asking does not take s_server's one connection (`-naccept 1`).
/// Without that file (not Linux) the answer is yes after a pause, and a
/// refused connection is retried by the connecting side.
fn listening(port: u16) -> bool {
    match std::fs::read_to_string("/proc/net/tcp") {
        Ok(t) => {
            let want = format!("0100007F:{port:04X}");
            t.lines().skip(1).any(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                f.len() > 3 && f[1] == want && f[3] == "0A"
            })
        }
        Err(_) => {
            std::thread::sleep(Duration::from_millis(300));
            true
        }
    }
}

/// The peer `proc`'s connection to `listener`, within [`TIMEOUT`].
fn accept(listener: &TcpListener, proc: &mut Proc) -> Result<TcpStream, String> {
    let deadline = Instant::now() + TIMEOUT;
    relay::accept_while(listener, || {
        if let Some(st) = proc.exited() {
            return Err(format!(
                "{} exited ({st}) before connecting: {}",
                proc.what,
                proc.stderr().trim()
            ));
        }
        if Instant::now() > deadline {
            return Err(format!("{} did not connect within {TIMEOUT:?}", proc.what));
        }
        Ok(())
    })
}

fn check_suite(s: &Suite, got: Option<CipherSuite>) -> Result<(), String> {
    if got == Some(s.iana()) {
        Ok(())
    } else {
        Err(format!("negotiated {got:?}, not {}", s.name))
    }
}

fn check_same(what: &str, got: &[u8], want: &[u8]) -> Result<(), String> {
    if got == want {
        return Ok(());
    }
    let first = got.iter().zip(want).position(|(a, b)| a != b);
    Err(format!(
        "{what}: {} bytes arrived of {}, first difference at {}",
        got.len(),
        want.len(),
        first.map_or("the end".into(), |i| i.to_string())
    ))
}

/// A clean transfer: our code sealed and opened at least the records
/// [`TRANSFER`] bytes need each way.
fn check_counts(d: Counts) -> Result<String, String> {
    if d.seals < MIN_RECORDS
        || d.opens < MIN_RECORDS
        || d.sealed_bytes < TRANSFER as u64
        || d.opened_bytes < TRANSFER as u64
    {
        return Err(format!(
            "our AES-GCM did not carry the transfer: {} seals ({} bytes), {} opens ({} bytes); at least {MIN_RECORDS} records and {TRANSFER} bytes each way expected",
            d.seals, d.sealed_bytes, d.opens, d.opened_bytes
        ));
    }
    if d.rejected != 0 {
        return Err(format!(
            "{} opens rejected on a clean connection",
            d.rejected
        ));
    }
    Ok(format!(
        "identical; our AES-GCM sealed {} records ({} bytes) and opened {} ({} bytes)",
        d.seals, d.sealed_bytes, d.opens, d.opened_bytes
    ))
}

struct Args {
    openssl: PathBuf,
    modes: Vec<Mode>,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        openssl: PathBuf::from("openssl"),
        modes: vec![Mode::Auto, Mode::Soft],
    };
    let mut it = std::env::args().skip(1);
    while let Some(x) = it.next() {
        match x.as_str() {
            "--openssl" => a.openssl = it.next().ok_or("--openssl needs a path")?.into(),
            "--mode" => {
                a.modes = match it.next().as_deref() {
                    Some("auto") => vec![Mode::Auto],
                    Some("soft") => vec![Mode::Soft],
                    Some("both") => vec![Mode::Auto, Mode::Soft],
                    other => return Err(format!("--mode takes auto, soft or both, not {other:?}")),
                }
            }
            "-h" | "--help" => {
                println!("usage: tls-interop [--openssl PATH] [--mode auto|soft|both]");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(a)
}

fn main() -> ExitCode {
    match real_main() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tls-interop: FAILED: {e}");
            ExitCode::FAILURE
        }
    }
}

fn real_main() -> Result<(), String> {
    let args = parse()?;
    let version = Command::new(&args.openssl)
        .arg("version")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", args.openssl.display()))?;
    println!(
        "tls-interop: {}",
        String::from_utf8_lossy(&version.stdout).trim()
    );
    let dir = std::env::temp_dir().join(format!("tls-interop-{}", std::process::id()));
    let ctx = make_certs(&args.openssl, &dir)?;
    let suites = suites();
    let ours: Vec<SupportedCipherSuite> =
        suites.iter().map(Suite::ours).collect::<Result<_, _>>()?;

    let (mut passed, mut failed) = (0usize, Vec::new());
    let run_start = Instant::now();
    let mut seed = 1u64;
    for &mode in &args.modes {
        aead::set_mode(mode);
        let _ = aead::take_configs();
        let start = Instant::now();
        for (s, o) in suites.iter().zip(&ours) {
            for sc in Scenario::ALL {
                seed += 1;
                if run_start.elapsed() > BUDGET {
                    failed.push(format!(
                        "[{}] {} {}: not run, the run's {BUDGET:?} budget is spent",
                        mode.name(),
                        s.name,
                        sc.what()
                    ));
                    continue;
                }
                let t = Instant::now();
                match run_one(&ctx, s, o, sc, seed) {
                    Ok(line) => {
                        passed += 1;
                        println!(
                            "ok     [{}] {} {}: {line} ({:.2}s)",
                            mode.name(),
                            s.name,
                            sc.what(),
                            t.elapsed().as_secs_f64()
                        );
                    }
                    Err(e) => {
                        println!("FAILED [{}] {} {}: {e}", mode.name(), s.name, sc.what());
                        failed.push(format!("[{}] {} {}: {e}", mode.name(), s.name, sc.what()));
                    }
                }
            }
        }
        let configs = aead::take_configs();
        println!(
            "[{}] the records were sealed and opened by aes-gcm-ct with ({:.1}s):",
            mode.name(),
            start.elapsed().as_secs_f64()
        );
        for c in &configs {
            println!("    {c}");
        }
        if configs.is_empty() {
            failed.push(format!(
                "[{}] no aes-gcm-ct key was made at all",
                mode.name()
            ));
        }
    }
    let c = aead::counts();
    println!(
        "tls-interop: our AES-GCM sealed {} records, opened {}, rejected {}",
        c.seals, c.opens, c.rejected
    );
    let expected = args.modes.len() * suites.len() * Scenario::ALL.len();
    if passed + failed.len() != expected {
        failed.push(format!(
            "{} connections ran, {expected} expected",
            passed + failed.len()
        ));
    }
    println!("tls-interop: {passed} passed, {} failed", failed.len());
    if failed.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
        Ok(())
    } else {
        println!(
            "tls-interop: certificates and OpenSSL's stderr of every connection kept in {}",
            dir.display()
        );
        Err(failed.join("\n  "))
    }
}
