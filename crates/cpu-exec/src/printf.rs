//! Device `printf`: one C conversion specification at a time, formatted by the C library's
//! `snprintf` so the output matches the host's `printf` digit for digit.
//!
//! The argument buffer follows CUDA's `vprintf` layout: each argument aligned to its size,
//! `int`-sized conversions (and `char`, `short`) in 4 bytes, `l`/`ll`/`z`/`j`/`t` integers,
//! `double` (a `float` is promoted) and pointers in 8. Width and precision are folded into the
//! specification as numbers (at most 4096), so every `snprintf` call takes exactly one argument
//! whose C type the specification names.

use std::ffi::{c_char, c_int, c_longlong, c_uint, c_ulonglong, c_void, CString};

/// The most a width or precision may ask for (larger values are clamped).
const MAX_FIELD: i64 = 4096;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Length {
    /// `int` or smaller (`hh`, `h` or none).
    Int(&'static str),
    /// An 8-byte integer (`l`, `ll`, `z`, `j`, `t`).
    Long,
}

/// One conversion specification, e.g. `%-08.3lf`.
#[derive(Clone, Debug)]
pub(crate) struct Spec {
    flags: String,
    width: Option<i64>,
    pub(crate) star_width: bool,
    precision: Option<i64>,
    pub(crate) star_precision: bool,
    length: Length,
    pub(crate) conv: u8,
    /// Bytes of the format the specification spans, `%` included.
    pub(crate) len: usize,
}

/// The value of one conversion.
pub(crate) enum Arg {
    Int(u64),
    Float(f64),
    Str(Vec<u8>),
}

impl Spec {
    /// Parses the specification at the start of `s` (which starts with `%`); `None` when it is
    /// malformed or names a conversion device `printf` does not have (`%n`).
    pub(crate) fn parse(s: &[u8]) -> Option<Spec> {
        let mut i = 1;
        let mut flags = String::new();
        while let Some(&c) = s.get(i) {
            if !b"-+ #0".contains(&c) {
                break;
            }
            if !flags.contains(c as char) {
                flags.push(c as char);
            }
            i += 1;
        }
        let number = |i: &mut usize| -> Option<i64> {
            let start = *i;
            while s.get(*i).is_some_and(u8::is_ascii_digit) {
                *i += 1;
            }
            (*i > start).then(|| std::str::from_utf8(&s[start..*i]).ok()?.parse::<i64>().ok()).flatten()
        };
        let (mut width, mut star_width) = (None, false);
        if s.get(i) == Some(&b'*') {
            star_width = true;
            i += 1;
        } else {
            width = number(&mut i);
        }
        let (mut precision, mut star_precision) = (None, false);
        if s.get(i) == Some(&b'.') {
            i += 1;
            if s.get(i) == Some(&b'*') {
                star_precision = true;
                i += 1;
            } else {
                precision = Some(number(&mut i).unwrap_or(0));
            }
        }
        let mut length = Length::Int("");
        for (text, l) in [
            (&b"hh"[..], Length::Int("hh")),
            (b"ll", Length::Long),
            (b"h", Length::Int("h")),
            (b"l", Length::Long),
            (b"z", Length::Long),
            (b"j", Length::Long),
            (b"t", Length::Long),
            (b"L", Length::Int("")),
        ] {
            if s[i..].starts_with(text) {
                length = l;
                i += text.len();
                break;
            }
        }
        let conv = *s.get(i)?;
        if !b"diuxXocsfFeEgGaAp%".contains(&conv) {
            return None;
        }
        Some(Spec { flags, width, star_width, precision, star_precision, length, conv, len: i + 1 })
    }

    /// The size in bytes of this conversion's integer argument.
    pub(crate) fn int_size(&self) -> u32 {
        match self.length {
            Length::Long => 8,
            Length::Int(_) => 4,
        }
    }

    /// Appends the formatted argument to `out`. `width` and `precision` are the values of `*`
    /// fields, read from the argument buffer.
    pub(crate) fn format(&self, out: &mut Vec<u8>, width: Option<i32>, precision: Option<i32>, arg: Arg) {
        let mut flags = self.flags.clone();
        let mut width = width.map(i64::from).or(self.width);
        if let Some(w) = width.filter(|w| *w < 0) {
            // A negative `*` width means left-justified, as in C.
            if !flags.contains('-') {
                flags.push('-');
            }
            width = Some(-w);
        }
        let precision = precision.map(i64::from).filter(|p| *p >= 0).or(if self.star_precision {
            None
        } else {
            self.precision
        });
        let mut spec = format!("%{flags}");
        if let Some(w) = width {
            spec += &w.min(MAX_FIELD).to_string();
        }
        if let Some(p) = precision {
            spec += &format!(".{}", p.min(MAX_FIELD));
        }
        let conv = self.conv as char;
        match (&arg, self.conv) {
            (Arg::Int(_), b'c' | b'p') => spec.push(conv),
            (Arg::Int(_), _) => {
                spec += match self.length {
                    Length::Long => "ll",
                    Length::Int(m) => m,
                };
                spec.push(conv);
            }
            _ => spec.push(conv),
        }
        let Ok(spec) = CString::new(spec) else { return };
        // SAFETY: every call passes one argument of the C type the specification names (the
        // specification was built above from a checked conversion and length), and `text`
        // outlives the calls; `snprintf` writes at most `buf.len()` bytes.
        unsafe {
            let call = |buf: *mut c_char, n: usize| -> c_int {
                match (&arg, self.conv) {
                    (Arg::Int(v), b'p') => {
                        libc::snprintf(buf, n, spec.as_ptr(), *v as usize as *const c_void)
                    }
                    (Arg::Int(v), b'd' | b'i' | b'c') => match self.length {
                        Length::Long => libc::snprintf(buf, n, spec.as_ptr(), *v as c_longlong),
                        Length::Int(_) => libc::snprintf(buf, n, spec.as_ptr(), *v as u32 as c_int),
                    },
                    (Arg::Int(v), _) => match self.length {
                        Length::Long => libc::snprintf(buf, n, spec.as_ptr(), *v as c_ulonglong),
                        Length::Int(_) => libc::snprintf(buf, n, spec.as_ptr(), *v as c_uint),
                    },
                    (Arg::Float(f), _) => libc::snprintf(buf, n, spec.as_ptr(), *f),
                    (Arg::Str(s), _) => {
                        let text = CString::new(s.clone()).unwrap_or_default();
                        libc::snprintf(buf, n, spec.as_ptr(), text.as_ptr())
                    }
                }
            };
            let n = call(std::ptr::null_mut(), 0);
            if n <= 0 {
                return;
            }
            let mut buf = vec![0u8; n as usize + 1];
            let written = call(buf.as_mut_ptr() as *mut c_char, buf.len());
            if written > 0 {
                out.extend_from_slice(&buf[..(written as usize).min(n as usize)]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(fmt: &str, arg: Arg, expect: &str) {
        let spec = Spec::parse(fmt.as_bytes()).unwrap_or_else(|| panic!("`{fmt}` did not parse"));
        assert_eq!(spec.len, fmt.len(), "`{fmt}` spans the whole text");
        let mut out = Vec::new();
        spec.format(&mut out, None, None, arg);
        assert_eq!(String::from_utf8_lossy(&out), expect, "formatting `{fmt}`");
    }

    #[test]
    fn conversions_match_c() {
        check("%d", Arg::Int((-42i32) as u32 as u64), "-42");
        check("%5d", Arg::Int(7), "    7");
        check("%-5d", Arg::Int(7), "7    ");
        check("%05u", Arg::Int(42), "00042");
        check("%x", Arg::Int(255), "ff");
        check("%#X", Arg::Int(255), "0XFF");
        check("%lld", Arg::Int((-5i64) as u64), "-5");
        check("%lu", Arg::Int(u64::MAX), "18446744073709551615");
        check("%hhd", Arg::Int(0x1ff), "-1");
        check("%c", Arg::Int(b'A' as u64), "A");
        check("%f", Arg::Float(1.5), "1.500000");
        check("%.3e", Arg::Float(12345.678), "1.235e+04");
        check("%g", Arg::Float(0.0001), "0.0001");
        check("%8.2f", Arg::Float(-1.23456), "   -1.23");
        check("%s", Arg::Str(b"hip".to_vec()), "hip");
        check("%.2s", Arg::Str(b"hip".to_vec()), "hi");
        check("%%", Arg::Int(0), "%");
    }

    #[test]
    fn star_fields_and_malformed_conversions() {
        let spec = Spec::parse(b"%*.*f").unwrap();
        assert!(spec.star_width && spec.star_precision);
        let mut out = Vec::new();
        spec.format(&mut out, Some(-8), Some(2), Arg::Float(2.5));
        assert_eq!(out, b"2.50    ");
        assert!(Spec::parse(b"%n").is_none(), "%n writes memory and is refused");
        assert!(Spec::parse(b"%").is_none());
        assert!(Spec::parse(b"%q").is_none());
    }
}
