//! rustls record protection by aes-gcm-ct: the `Tls13AeadAlgorithm` and
//! `Tls12AeadAlgorithm` of the AES-GCM suites, and the counters that show
//! our seal and open carried the records.
//!
//! Record formats (RFC 8446 section 5.2, RFC 5288 section 3):
//! * TLS 1.3: nonce = IV xor seq (left-padded to 12 bytes); the inner
//!   plaintext is the content followed by its one-byte content type; the
//!   additional data is the record header (type 23, version 0x0303, the
//!   ciphertext length including the tag).
//! * TLS 1.2 AES-GCM: nonce = 4-byte salt || 8-byte explicit nonce, the
//!   explicit part sent in front of the ciphertext (here salt || extra xor
//!   seq, as rustls' own provider does, so it never repeats); the
//!   additional data is seq || type || version || plaintext length.

use aes_gcm_ct::aead::{AeadInOut, KeyInit};
use aes_gcm_ct::aes::{Aes128, Aes256};
use aes_gcm_ct::{Aes128Gcm, Aes256Gcm, AesGcm, Nonce, Tag};
use rustls::crypto::cipher::{
    AeadKey, InboundOpaqueMessage, InboundPlainMessage, Iv, KeyBlockShape, MessageDecrypter,
    MessageEncrypter, NONCE_LEN, OutboundOpaqueMessage, OutboundPlainMessage, PrefixedPayload,
    Tls12AeadAlgorithm, Tls13AeadAlgorithm, UnsupportedOperationError, make_tls12_aad,
    make_tls13_aad,
};
use rustls::{ConnectionTrafficSecrets, ContentType, Error, ProtocolVersion};
use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

const TAG_LEN: usize = 16;
/// TLS 1.2 AES-GCM's explicit nonce, sent before each record's ciphertext.
const EXPLICIT_NONCE_LEN: usize = 8;
/// The largest plaintext a record may carry (RFC 8446 section 5.1).
const MAX_FRAGMENT_LEN: usize = 1 << 14;

/// Which aes-gcm-ct configuration new record keys get.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `Aes128Gcm::new` / `Aes256Gcm::new`: the path, AES backend and
    /// GHASH backend that automatic selection picks on this CPU.
    Auto,
    /// The software path forced at run time: aes-ct's portable `soft`
    /// backend under aes-gcm-ct's `generic` path with ghash-ct's portable
    /// backend (no AES or carry-less multiply instruction involved).
    Soft,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Auto => "auto",
            Mode::Soft => "soft",
        }
    }
}

static MODE: AtomicU8 = AtomicU8::new(0);

pub fn set_mode(m: Mode) {
    MODE.store(m as u8, Ordering::SeqCst);
}

fn mode() -> Mode {
    if MODE.load(Ordering::SeqCst) == Mode::Soft as u8 {
        Mode::Soft
    } else {
        Mode::Auto
    }
}

/// How often our code sealed and opened records, and how many opens it
/// rejected.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub seals: u64,
    pub opens: u64,
    pub rejected: u64,
    pub sealed_bytes: u64,
    pub opened_bytes: u64,
}

impl std::ops::Sub for Counts {
    type Output = Counts;
    fn sub(self, o: Counts) -> Counts {
        Counts {
            seals: self.seals - o.seals,
            opens: self.opens - o.opens,
            rejected: self.rejected - o.rejected,
            sealed_bytes: self.sealed_bytes - o.sealed_bytes,
            opened_bytes: self.opened_bytes - o.opened_bytes,
        }
    }
}

static SEALS: AtomicU64 = AtomicU64::new(0);
static OPENS: AtomicU64 = AtomicU64::new(0);
static REJECTED: AtomicU64 = AtomicU64::new(0);
static SEALED_BYTES: AtomicU64 = AtomicU64::new(0);
static OPENED_BYTES: AtomicU64 = AtomicU64::new(0);

pub fn counts() -> Counts {
    Counts {
        seals: SEALS.load(Ordering::SeqCst),
        opens: OPENS.load(Ordering::SeqCst),
        rejected: REJECTED.load(Ordering::SeqCst),
        sealed_bytes: SEALED_BYTES.load(Ordering::SeqCst),
        opened_bytes: OPENED_BYTES.load(Ordering::SeqCst),
    }
}

/// Every configuration a record key was made with since the last call
/// (e.g. "AES-128-GCM: path aesni-clmul, aes-ct aesni, ghash-ct pclmul").
static CONFIGS: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

pub fn take_configs() -> BTreeSet<String> {
    match CONFIGS.lock() {
        Ok(mut g) => std::mem::take(&mut *g),
        Err(p) => std::mem::take(&mut *p.into_inner()),
    }
}

fn note_config(c: String) {
    match CONFIGS.lock() {
        Ok(mut g) => g.insert(c),
        Err(p) => p.into_inner().insert(c),
    };
}

/// One record key: AES-128-GCM or AES-256-GCM.
enum Gcm {
    A128(Aes128Gcm),
    A256(Aes256Gcm),
}

/// `$gcm` (AES-GCM over `$aes`) for `$key` in mode `$mode`, and its description.
macro_rules! make_gcm {
    ($gcm:ty, $aes:ty, $name:literal, $key:expr, $mode:expr) => {{
        let g: $gcm = match $mode {
            Mode::Auto => AesGcm::new_from_slice($key)
                .map_err(|_| format!("{}: wrong key length {}", $name, $key.len()))?,
            Mode::Soft => {
                let k = aes_gcm_ct::Key::<$aes>::try_from($key)
                    .map_err(|_| format!("{}: wrong key length {}", $name, $key.len()))?;
                let aes = <$aes>::new_with_backend(&k, aes_gcm_ct::aes::Backend::Soft)
                    .map_err(|e| format!("{}: {e}", $name))?;
                AesGcm::with_ghash_backend(aes, ghash_ct::Backend::PORTABLE)
                    .map_err(|e| format!("{}: {e}", $name))?
            }
        };
        let aes = match $mode {
            Mode::Auto => aes_gcm_ct::aes::Backend::detected(),
            Mode::Soft => aes_gcm_ct::aes::Backend::Soft,
        };
        let desc = format!(
            "{}: path {}, aes-ct {}, ghash-ct {}",
            $name,
            g.backend(),
            aes,
            g.ghash_backend()
        );
        (g, desc)
    }};
}

impl Gcm {
    fn new(key: &[u8]) -> Result<Self, String> {
        let m = mode();
        let (gcm, desc) = match key.len() {
            16 => {
                let (g, d) = make_gcm!(Aes128Gcm, Aes128, "AES-128-GCM", key, m);
                (Gcm::A128(g), d)
            }
            32 => {
                let (g, d) = make_gcm!(Aes256Gcm, Aes256, "AES-256-GCM", key, m);
                (Gcm::A256(g), d)
            }
            n => return Err(format!("no AES-GCM with a {n}-byte key")),
        };
        if m == Mode::Soft && !desc.contains("path generic, aes-ct soft, ghash-ct soft") {
            return Err(format!("the soft mode did not get the soft path: {desc}"));
        }
        note_config(desc);
        Ok(gcm)
    }

    /// Encrypt `buf` in place; the tag.
    fn seal(&self, nonce: &[u8; NONCE_LEN], aad: &[u8], buf: &mut [u8]) -> Result<Tag, Error> {
        let n = Nonce::from(*nonce);
        let r = match self {
            Gcm::A128(g) => g.encrypt_inout_detached(&n, aad, buf.into()),
            Gcm::A256(g) => g.encrypt_inout_detached(&n, aad, buf.into()),
        };
        SEALS.fetch_add(1, Ordering::SeqCst);
        SEALED_BYTES.fetch_add(buf.len() as u64, Ordering::SeqCst);
        r.map_err(|_| Error::EncryptError)
    }

    /// One record's payload (`total` bytes): the last `explicit` bytes of
    /// the nonce (TLS 1.2's explicit nonce, sent in the clear), the
    /// plaintext, `inner_type` (TLS 1.3's content type), sealed from the
    /// plaintext on under nonce = `iv` xor `seq` and the additional data
    /// `aad(plaintext length)`, then the tag.
    #[allow(clippy::too_many_arguments)]
    fn seal_record<A: AsRef<[u8]>>(
        &self,
        iv: &[u8; NONCE_LEN],
        seq: u64,
        msg: &OutboundPlainMessage<'_>,
        explicit: usize,
        inner_type: &[u8],
        total: usize,
        aad: impl FnOnce(usize) -> A,
    ) -> Result<PrefixedPayload, Error> {
        let nonce = iv_xor_seq(iv, seq);
        let mut payload = PrefixedPayload::with_capacity(total);
        payload.extend_from_slice(&nonce[NONCE_LEN - explicit..]);
        payload.extend_from_chunks(&msg.payload);
        payload.extend_from_slice(inner_type);
        let aad = aad(msg.payload.len());
        let tag = self.seal(&nonce, aad.as_ref(), &mut payload.as_mut()[explicit..])?;
        payload.extend_from_slice(&tag);
        Ok(payload)
    }

    /// Check `tag` and decrypt `buf` in place.
    fn open(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        let n = Nonce::from(*nonce);
        let tag = Tag::try_from(tag).map_err(|_| Error::DecryptError)?;
        let r = match self {
            Gcm::A128(g) => g.decrypt_inout_detached(&n, aad, buf.into(), &tag),
            Gcm::A256(g) => g.decrypt_inout_detached(&n, aad, buf.into(), &tag),
        };
        OPENS.fetch_add(1, Ordering::SeqCst);
        match r {
            Ok(()) => {
                OPENED_BYTES.fetch_add(buf.len() as u64, Ordering::SeqCst);
                Ok(())
            }
            Err(_) => {
                REJECTED.fetch_add(1, Ordering::SeqCst);
                Err(Error::DecryptError)
            }
        }
    }
}

/// One direction's record key, or the reason it could not be made: every
/// record then fails with the reason (rustls' factory methods cannot
/// return an error, and a panic is no answer to bad input).
struct RecordKey(Result<Key, String>);

/// The record format a key protects.
#[derive(Clone, Copy)]
enum Version {
    Tls13,
    Tls12,
}

/// A record key of either format.
struct Key {
    gcm: Gcm,
    /// TLS 1.3: the IV. TLS 1.2: salt || explicit nonce start
    /// (encryption), salt || zeros (decryption: the explicit part comes
    /// with each record).
    iv: [u8; NONCE_LEN],
    version: Version,
}

impl RecordKey {
    fn key(&self) -> Result<&Key, Error> {
        self.0.as_ref().map_err(|e| Error::General(e.clone()))
    }
}

impl MessageEncrypter for RecordKey {
    fn encrypt(
        &mut self,
        msg: OutboundPlainMessage<'_>,
        seq: u64,
    ) -> Result<OutboundOpaqueMessage, Error> {
        self.key()?.seal(msg, seq)
    }

    fn encrypted_payload_len(&self, payload_len: usize) -> usize {
        payload_len + self.0.as_ref().map_or(0, Key::overhead)
    }
}

impl MessageDecrypter for RecordKey {
    fn decrypt<'a>(
        &mut self,
        msg: InboundOpaqueMessage<'a>,
        seq: u64,
    ) -> Result<InboundPlainMessage<'a>, Error> {
        self.key()?.open(msg, seq)
    }
}

/// The keys of an AES-GCM record key, for kTLS-style export.
fn traffic_secrets(
    key_len: usize,
    key: AeadKey,
    iv: Iv,
) -> Result<ConnectionTrafficSecrets, UnsupportedOperationError> {
    match key_len {
        16 => Ok(ConnectionTrafficSecrets::Aes128Gcm { key, iv }),
        32 => Ok(ConnectionTrafficSecrets::Aes256Gcm { key, iv }),
        _ => Err(UnsupportedOperationError),
    }
}

fn iv_xor_seq(iv: &[u8; NONCE_LEN], seq: u64) -> [u8; NONCE_LEN] {
    let mut n = *iv;
    for (b, s) in n[4..].iter_mut().zip(seq.to_be_bytes()) {
        *b ^= s;
    }
    n
}

/// The TLS 1.3 AEAD of the AES-GCM suites (`key_len` 16 or 32).
pub struct Tls13Gcm {
    pub key_len: usize,
}

fn tls13_key(key: &AeadKey, iv: &Iv) -> Result<Key, String> {
    let iv: [u8; NONCE_LEN] = iv
        .as_ref()
        .try_into()
        .map_err(|_| format!("TLS 1.3 IV of {} bytes", iv.as_ref().len()))?;
    Ok(Key {
        gcm: Gcm::new(key.as_ref())?,
        iv,
        version: Version::Tls13,
    })
}

impl Tls13AeadAlgorithm for Tls13Gcm {
    fn encrypter(&self, key: AeadKey, iv: Iv) -> Box<dyn MessageEncrypter> {
        Box::new(RecordKey(tls13_key(&key, &iv)))
    }

    fn decrypter(&self, key: AeadKey, iv: Iv) -> Box<dyn MessageDecrypter> {
        Box::new(RecordKey(tls13_key(&key, &iv)))
    }

    fn key_len(&self) -> usize {
        self.key_len
    }

    fn extract_keys(
        &self,
        key: AeadKey,
        iv: Iv,
    ) -> Result<ConnectionTrafficSecrets, UnsupportedOperationError> {
        traffic_secrets(self.key_len, key, iv)
    }
}

/// The TLS 1.2 AEAD of the ECDHE AES-GCM suites (`key_len` 16 or 32).
pub struct Tls12Gcm {
    pub key_len: usize,
}

fn tls12_key(key: &AeadKey, salt: &[u8], extra: &[u8]) -> Result<Key, String> {
    if salt.len() != 4 || extra.len() > EXPLICIT_NONCE_LEN {
        return Err(format!(
            "TLS 1.2 GCM salt of {} bytes, explicit part of {}",
            salt.len(),
            extra.len()
        ));
    }
    let mut iv = [0u8; NONCE_LEN];
    iv[..4].copy_from_slice(salt);
    iv[4..4 + extra.len()].copy_from_slice(extra);
    Ok(Key {
        gcm: Gcm::new(key.as_ref())?,
        iv,
        version: Version::Tls12,
    })
}

impl Tls12AeadAlgorithm for Tls12Gcm {
    fn encrypter(&self, key: AeadKey, iv: &[u8], extra: &[u8]) -> Box<dyn MessageEncrypter> {
        Box::new(RecordKey(tls12_key(&key, iv, extra)))
    }

    fn decrypter(&self, key: AeadKey, iv: &[u8]) -> Box<dyn MessageDecrypter> {
        Box::new(RecordKey(tls12_key(&key, iv, &[])))
    }

    fn key_block_shape(&self) -> KeyBlockShape {
        KeyBlockShape {
            enc_key_len: self.key_len,
            fixed_iv_len: 4,
            explicit_nonce_len: EXPLICIT_NONCE_LEN,
        }
    }

    fn extract_keys(
        &self,
        key: AeadKey,
        iv: &[u8],
        explicit: &[u8],
    ) -> Result<ConnectionTrafficSecrets, UnsupportedOperationError> {
        let mut full = [0u8; NONCE_LEN];
        if iv.len() != 4 || explicit.len() != EXPLICIT_NONCE_LEN {
            return Err(UnsupportedOperationError);
        }
        full[..4].copy_from_slice(iv);
        full[4..].copy_from_slice(explicit);
        traffic_secrets(self.key_len, key, Iv::new(full))
    }
}

impl Key {
    /// Bytes a record adds to its plaintext.
    fn overhead(&self) -> usize {
        match self.version {
            Version::Tls13 => 1 + TAG_LEN,
            Version::Tls12 => EXPLICIT_NONCE_LEN + TAG_LEN,
        }
    }

    fn seal(
        &self,
        msg: OutboundPlainMessage<'_>,
        seq: u64,
    ) -> Result<OutboundOpaqueMessage, Error> {
        let total = msg.payload.len() + self.overhead();
        match self.version {
            Version::Tls13 => {
                let typ = msg.typ.to_array();
                let payload = self
                    .gcm
                    .seal_record(&self.iv, seq, &msg, 0, &typ, total, |_| {
                        make_tls13_aad(total)
                    })?;
                Ok(OutboundOpaqueMessage::new(
                    ContentType::ApplicationData,
                    ProtocolVersion::TLSv1_2,
                    payload,
                ))
            }
            Version::Tls12 => {
                let payload = self.gcm.seal_record(
                    &self.iv,
                    seq,
                    &msg,
                    EXPLICIT_NONCE_LEN,
                    &[],
                    total,
                    |len| make_tls12_aad(seq, msg.typ, msg.version, len),
                )?;
                Ok(OutboundOpaqueMessage::new(msg.typ, msg.version, payload))
            }
        }
    }

    fn open<'a>(
        &self,
        mut msg: InboundOpaqueMessage<'a>,
        seq: u64,
    ) -> Result<InboundPlainMessage<'a>, Error> {
        let len = msg.payload.len();
        match self.version {
            Version::Tls13 => {
                if len < TAG_LEN {
                    return Err(Error::DecryptError);
                }
                let aad = make_tls13_aad(len);
                let nonce = iv_xor_seq(&self.iv, seq);
                let (text, tag) = msg.payload.split_at_mut(len - TAG_LEN);
                self.gcm.open(&nonce, &aad, text, tag)?;
                msg.payload.truncate(len - TAG_LEN);
                msg.into_tls13_unpadded_message()
            }
            Version::Tls12 => {
                if len < EXPLICIT_NONCE_LEN + TAG_LEN {
                    return Err(Error::DecryptError);
                }
                let text_len = len - EXPLICIT_NONCE_LEN - TAG_LEN;
                if text_len > MAX_FRAGMENT_LEN {
                    return Err(Error::PeerSentOversizedRecord);
                }
                let mut nonce = self.iv;
                nonce[4..].copy_from_slice(&msg.payload[..EXPLICIT_NONCE_LEN]);
                let aad = make_tls12_aad(seq, msg.typ, msg.version, text_len);
                let (text, tag) = msg.payload[EXPLICIT_NONCE_LEN..].split_at_mut(text_len);
                self.gcm.open(&nonce, &aad, text, tag)?;
                // The plaintext without the explicit nonce in front.
                msg.payload
                    .copy_within(EXPLICIT_NONCE_LEN..EXPLICIT_NONCE_LEN + text_len, 0);
                msg.payload.truncate(text_len);
                Ok(msg.into_plain_message())
            }
        }
    }
}
