//! The JSON value the JKF reader reads into and the writer builds: borrowed strings, objects
//! as key-value pairs in file order.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use serde::de::{MapAccess, SeqAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

/// A JSON object read with its keys in file order.
pub(super) struct Ordered(pub(super) Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Ordered, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Ordered;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Ordered, A::Error> {
                let mut v = Vec::new();
                while let Some((k, val)) = m.next_entry::<String, Value>()? {
                    v.push((k, val));
                }
                Ok(Ordered(v))
            }
        }
        d.deserialize_map(V)
    }
}

/// A JSON value as the reader takes it: like [`Value`], but strings are borrowed from the text
/// where they hold no escapes and objects are key-value pairs in file order (a repeated key
/// replaces the earlier value in place, as serde_json's ordered map does). Building a
/// `Value` (an ordered hash map per object, a `String` per string) was most of the time of
/// reading JKF. It writes back as the same JSON as the `Value` would (`Serialize`,
/// `Display`).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum J<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    Array(Vec<J<'a>>),
    Object(Vec<(Cow<'a, str>, J<'a>)>),
}

impl<'a> J<'a> {
    /// The value of `key`, if this is an object that has it.
    pub(super) fn get(&self, key: &str) -> Option<&J<'a>> {
        match self {
            J::Object(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub(super) fn as_str(&self) -> Option<&str> {
        match self {
            J::String(s) => Some(s),
            _ => None,
        }
    }

    pub(super) fn as_bool(&self) -> Option<bool> {
        match self {
            J::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub(super) fn as_u64(&self) -> Option<u64> {
        match self {
            J::Number(n) => n.as_u64(),
            _ => None,
        }
    }

    pub(super) fn as_f64(&self) -> Option<f64> {
        match self {
            J::Number(n) => n.as_f64(),
            _ => None,
        }
    }

    pub(super) fn as_object(&self) -> Option<&[(Cow<'a, str>, J<'a>)]> {
        match self {
            J::Object(m) => Some(m),
            _ => None,
        }
    }

    pub(super) fn is_null(&self) -> bool {
        matches!(self, J::Null)
    }
}

impl Serialize for J<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            J::Null => s.serialize_unit(),
            J::Bool(b) => s.serialize_bool(*b),
            J::Number(n) => n.serialize(s),
            J::String(x) => s.serialize_str(x),
            J::Array(v) => v.serialize(s),
            J::Object(m) => {
                let mut map = s.serialize_map(Some(m.len()))?;
                for (k, v) in m {
                    map.serialize_entry(k.as_ref(), v)?;
                }
                map.end()
            }
        }
    }
}

impl fmt::Display for J<'_> {
    /// Compact JSON, as `Value`'s `Display` writes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&serde_json::to_string(self).map_err(|_| fmt::Error)?)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for J<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<J<'a>, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = J<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<J<'a>, E> {
                Ok(J::Bool(b))
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<J<'a>, E> {
                Ok(J::Number(n.into()))
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<J<'a>, E> {
                Ok(J::Number(n.into()))
            }
            fn visit_f64<E: serde::de::Error>(self, x: f64) -> Result<J<'a>, E> {
                // As `Value` does: a float that is not finite is null.
                Ok(Number::from_f64(x).map_or(J::Null, J::Number))
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, s: &'de str) -> Result<J<'a>, E> {
                Ok(J::String(Cow::Borrowed(s)))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<J<'a>, E> {
                Ok(J::String(Cow::Owned(s.to_owned())))
            }
            fn visit_string<E: serde::de::Error>(self, s: String) -> Result<J<'a>, E> {
                Ok(J::String(Cow::Owned(s)))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<J<'a>, E> {
                Ok(J::Null)
            }
            fn visit_none<E: serde::de::Error>(self) -> Result<J<'a>, E> {
                Ok(J::Null)
            }
            fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<J<'a>, D::Error> {
                J::deserialize(d)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<J<'a>, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = a.next_element::<J<'a>>()? {
                    v.push(x);
                }
                Ok(J::Array(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<J<'a>, A::Error> {
                let mut pairs: Vec<(Cow<'a, str>, J<'a>)> = Vec::new();
                // Where each key stands, once an object is too big to search key by key.
                let mut index: Option<HashMap<Cow<'a, str>, usize>> = None;
                // serde_json's keys are strings (borrowed when they hold no escapes).
                while let Some(key) = m.next_key::<J<'a>>()? {
                    let J::String(k) = key else {
                        return Err(serde::de::Error::custom("a key that is not a string"));
                    };
                    let v = m.next_value::<J<'a>>()?;
                    if pairs.len() >= 16 && index.is_none() {
                        index = Some(
                            pairs
                                .iter()
                                .enumerate()
                                .map(|(i, (k, _))| (k.clone(), i))
                                .collect(),
                        );
                    }
                    let at = match &index {
                        Some(ix) => ix.get(&k).copied(),
                        None => pairs.iter().position(|(x, _)| *x == k),
                    };
                    match at.and_then(|i| pairs.get_mut(i)) {
                        Some(slot) => slot.1 = v,
                        None => {
                            if let Some(ix) = &mut index {
                                ix.insert(k.clone(), pairs.len());
                            }
                            pairs.push((k, v));
                        }
                    }
                }
                Ok(J::Object(pairs))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reader's JSON value writes back as the same JSON as serde_json's `Value` read from
    /// the same text (what a move's raw text and messages quote), and finds the same values by
    /// key: escapes, numbers of every kind, nesting, repeated keys (the last value, at the
    /// first key's place), objects large enough to be indexed.
    #[test]
    fn the_reader_value_writes_back_as_serde_json_value_does() {
        let mut many = String::from("{");
        for i in 0..40 {
            many.push_str(&format!("\"k{}\":{},", i % 25, i));
        }
        many.push_str("\"k3\":\"last\"}");
        let texts = [
            r#"{"a":1,"b":[true,false,null],"c":{"x":-3,"y":2.5e3}}"#,
            r#"{"s":"\u3042\"\\\n/\/","t":"\ud83d\ude00","u":""}"#,
            r#"{"big":18446744073709551615,"neg":-9223372036854775808,"f":0.1,"e":1E-7,"z":-0.0}"#,
            r#"{"dup":1,"other":2,"dup":{"again":[1,2]}}"#,
            r#"[[],{},[{}],"x",3]"#,
            &many,
        ];
        for t in texts {
            let j: J<'_> = serde_json::from_str(t).expect("J parses");
            let v: Value = serde_json::from_str(t).expect("Value parses");
            assert_eq!(j.to_string(), v.to_string(), "{t}");
            assert_eq!(
                serde_json::to_string(&j).ok(),
                serde_json::to_string(&v).ok()
            );
            if let Some(obj) = v.as_object() {
                for (k, want) in obj {
                    assert_eq!(
                        j.get(k).map(|x| x.to_string()),
                        Some(want.to_string()),
                        "{k}"
                    );
                }
                assert_eq!(j.as_object().map(<[_]>::len), Some(obj.len()));
            }
        }
    }
}
