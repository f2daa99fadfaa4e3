//! Placeholder: arrives with its own issue.
#![no_std]
