//! Declares `--cfg aes_gcm_ct_backend="NAME"` with the names of this crate's backend
//! table (`src/backend.rs`, read by `ct_dispatch::build`), and makes a
//! name that is not in it a compile error.
fn main() {
    ct_dispatch::build::backend_cfg("aes_gcm_ct_backend");
}
