//! A TCP relay between a TLS client and server that flips one byte of
//! one application-data record in one direction, so the receiving side
//! must reject that record.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Which way the tampered record travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flip {
    /// From the server to the client.
    ToClient,
    /// From the client to the server.
    ToServer,
}

/// Application data (content type 23) that passes untouched before the
/// flip: far past the handshake (whose encrypted messages are also type 23
/// in TLS 1.3), so the tampered record carries application data.
const CLEAN_PREFIX: usize = 128 * 1024;
const APPLICATION_DATA: u8 = 23;

pub struct Relay {
    pub addr: SocketAddr,
    handle: JoinHandle<Result<String, String>>,
}

impl Relay {
    /// Listen on 127.0.0.1 and relay the first connection to `upstream`.
    pub fn start(upstream: SocketAddr, flip: Flip, timeout: Duration) -> Result<Relay, String> {
        let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("relay: bind: {e}"))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("relay: local_addr: {e}"))?;
        let handle = std::thread::spawn(move || run(listener, upstream, flip, timeout));
        Ok(Relay { addr, handle })
    }

    /// Wait for both directions to end; what was flipped, or why nothing was.
    pub fn finish(self) -> Result<String, String> {
        self.handle
            .join()
            .map_err(|_| "relay thread panicked".to_owned())?
    }
}

fn run(
    listener: TcpListener,
    upstream: SocketAddr,
    flip: Flip,
    timeout: Duration,
) -> Result<String, String> {
    let client = accept(&listener, timeout)?;
    let server = connect(upstream, timeout)?;
    for s in [&client, &server] {
        s.set_read_timeout(Some(timeout))
            .map_err(|e| format!("relay: {e}"))?;
        s.set_nodelay(true).map_err(|e| format!("relay: {e}"))?;
    }
    let clone = |s: &TcpStream| s.try_clone().map_err(|e| format!("relay: {e}"));
    let (c_in, c_out) = (clone(&client)?, clone(&client)?);
    let (s_in, s_out) = (clone(&server)?, clone(&server)?);
    let up = std::thread::spawn(move || pump(c_in, s_out, flip == Flip::ToServer));
    let down = pump(s_in, c_out, flip == Flip::ToClient);
    let up = up.join().map_err(|_| "relay thread panicked".to_owned())?;
    let (up, down) = (up?, down?);
    match (flip, up, down) {
        (Flip::ToServer, Some(what), _) | (Flip::ToClient, _, Some(what)) => Ok(what),
        _ => Err(format!(
            "the relay flipped nothing: fewer than {CLEAN_PREFIX} bytes of application data went {}",
            match flip {
                Flip::ToClient => "to the client",
                Flip::ToServer => "to the server",
            }
        )),
    }
}

/// Connect to `upstream`, retrying while it refuses (an OpenSSL server
/// that has not started listening yet).
fn connect(upstream: SocketAddr, timeout: Duration) -> Result<TcpStream, String> {
    let deadline = Instant::now() + timeout;
    loop {
        match TcpStream::connect_timeout(&upstream, timeout) {
            Ok(s) => return Ok(s),
            Err(e)
                if e.kind() == std::io::ErrorKind::ConnectionRefused
                    && Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(format!("relay: connect {upstream}: {e}")),
        }
    }
}

fn accept(listener: &TcpListener, timeout: Duration) -> Result<TcpStream, String> {
    let deadline = Instant::now() + timeout;
    accept_while(listener, || {
        if Instant::now() > deadline {
            Err("nobody connected".into())
        } else {
            Ok(())
        }
    })
    .map_err(|e| format!("relay: {e}"))
}

/// The first connection to `listener`, polled every few milliseconds
/// while `waiting()` is `Ok`; its error ends the wait.
pub fn accept_while(
    listener: &TcpListener,
    mut waiting: impl FnMut() -> Result<(), String>,
) -> Result<TcpStream, String> {
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("listener: {e}"))?;
    loop {
        match listener.accept() {
            Ok((s, _)) => {
                s.set_nonblocking(false)
                    .map_err(|e| format!("accept: {e}"))?;
                return Ok(s);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                waiting()?;
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(e) => return Err(format!("accept: {e}")),
        }
    }
}

/// Copy `from` to `to` record by record until `from` ends; with `tamper`,
/// flip the middle byte of the first application-data record after
/// [`CLEAN_PREFIX`] bytes of application data. Returns what was flipped.
fn pump(mut from: TcpStream, mut to: TcpStream, tamper: bool) -> Result<Option<String>, String> {
    let mut flipped = None;
    let mut app_bytes = 0usize;
    let mut records = 0usize;
    loop {
        let mut header = [0u8; 5];
        match read_full(&mut from, &mut header) {
            Ok(true) => {}
            // The sender closed (or reset) the connection: pass it on.
            Ok(false) | Err(_) => break,
        }
        let len = usize::from(u16::from_be_bytes([header[3], header[4]]));
        let mut body = vec![0u8; len];
        if !matches!(read_full(&mut from, &mut body), Ok(true)) {
            break;
        }
        records += 1;
        if header[0] == APPLICATION_DATA {
            if tamper && flipped.is_none() && app_bytes >= CLEAN_PREFIX && len > 0 {
                body[len / 2] ^= 0x01;
                flipped = Some(format!(
                    "record {records} (type 23, {len} bytes, after {app_bytes} bytes of application data): byte {} flipped",
                    len / 2
                ));
            }
            app_bytes += len;
        }
        if to.write_all(&header).is_err() || to.write_all(&body).is_err() {
            break;
        }
    }
    let _ = to.shutdown(Shutdown::Write);
    Ok(flipped)
}

/// Fill `buf`; `Ok(false)` if the stream ended before the first byte.
fn read_full(s: &mut TcpStream, buf: &mut [u8]) -> std::io::Result<bool> {
    let mut n = 0;
    while n < buf.len() {
        match s.read(&mut buf[n..])? {
            0 if n == 0 => return Ok(false),
            0 => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "stream ended inside a record",
                ));
            }
            k => n += k,
        }
    }
    Ok(true)
}
