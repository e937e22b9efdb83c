//! MuJoCo's schema presence constraints (`MJCF_constraints`, checked by
//! `mjXSchema::CheckConstraints`): which attributes of an element may, must or must not be
//! written together, with MuJoCo's words when they are not.

use super::xml::Element;
use crate::error::Result;
use Presence::{Exclusive, OneOf, Together};

impl Element {
    /// MuJoCo's schema presence constraints on this element (`mjXSchema::CheckConstraints`),
    /// checked where its schema checks them: after the attribute names, before any value is
    /// read. An attribute counts when it is written, even empty.
    pub(super) fn check_presence(&self) -> Result<()> {
        for rule in PRESENCE {
            if rule.element != self.name {
                continue;
            }
            let (mut any, mut all) = (0, 0);
            for bundle in rule.bundles {
                let n = bundle.iter().filter(|a| self.attr(a).is_some()).count();
                any += (n > 0) as usize;
                all += (n == bundle.len()) as usize;
            }
            let broken = match rule.kind {
                Presence::Exclusive => any > 1,
                Presence::OneOf => all == 0,
                Presence::Together => any != 0 && all != rule.bundles.len(),
            };
            if broken {
                return Err(self.error(rule.message()));
            }
        }
        Ok(())
    }
}

/// How the bundles of a presence constraint may appear.
#[derive(Clone, Copy)]
enum Presence {
    /// At most one bundle has any attribute written.
    Exclusive,
    /// At least one bundle is written whole.
    OneOf,
    /// All of the (single-attribute) bundles, or none.
    Together,
}

/// One of MuJoCo 3.15.0's presence constraints (`MJCF_constraints`): its attribute bundles.
struct Rule {
    element: &'static str,
    kind: Presence,
    bundles: &'static [&'static [&'static str]],
}

impl Rule {
    /// MuJoCo's words for a broken rule, bundles quoted as `'a'` or `('a', 'b')`.
    #[cold]
    #[inline(never)]
    fn message(&self) -> String {
        let (head, tail) = match self.kind {
            Presence::Exclusive => ("at most one of ", " can be specified"),
            Presence::OneOf => ("one of ", " must be specified"),
            Presence::Together => ("attributes ", " must be specified together"),
        };
        let mut msg = String::from("Schema violation: ");
        msg.push_str(head);
        for (i, bundle) in self.bundles.iter().enumerate() {
            if i > 0 {
                msg.push_str(", ");
            }
            let group = bundle.len() > 1;
            if group {
                msg.push('(');
            }
            for (j, a) in bundle.iter().enumerate() {
                if j > 0 {
                    msg.push_str(", ");
                }
                msg.push('\'');
                msg.push_str(a);
                msg.push('\'');
            }
            if group {
                msg.push(')');
            }
        }
        msg.push_str(tail);
        msg
    }
}

/// The presence constraints on the elements flexlab reads, in MuJoCo's order.
const PRESENCE: &[Rule] = &[
    rule("size", Exclusive, &[&["memory"], &["nstack"]]),
    rule("size", Exclusive, &[&["memory"], &["njmax"]]),
    rule("camera", Exclusive, &[&["fovy"], &["sensorsize"]]),
    rule("light", Exclusive, &[&["directional"], &["type"]]),
    rule("mesh", Exclusive, &[&["builtin"], &["file"]]),
    rule("mesh", Exclusive, &[&["builtin"], &["vertex"]]),
    rule(
        "inertial",
        Exclusive,
        &[
            &["fullinertia"],
            &["quat"],
            &["axisangle"],
            &["xyaxes"],
            &["zaxis"],
            &["euler"],
        ],
    ),
    rule(
        "connect",
        Exclusive,
        &[&["site1", "site2"], &["body1", "body2", "anchor"]],
    ),
    rule(
        "connect",
        OneOf,
        &[&["site1", "site2"], &["body1", "anchor"]],
    ),
    rule("connect", Together, &[&["site1"], &["site2"]]),
    rule(
        "weld",
        Exclusive,
        &[
            &["site1", "site2"],
            &["body1", "body2", "anchor", "relpose"],
        ],
    ),
    rule("weld", OneOf, &[&["site1", "site2"], &["body1"]]),
    rule("weld", Together, &[&["site1"], &["site2"]]),
];

/// A rule of [`PRESENCE`].
const fn rule(
    element: &'static str,
    kind: Presence,
    bundles: &'static [&'static [&'static str]],
) -> Rule {
    Rule {
        element,
        kind,
        bundles,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_quote_bundles_as_mujoco_does() {
        let together = Rule {
            element: "framepos",
            kind: Presence::Together,
            bundles: &[&["reftype"], &["refname"]],
        };
        // MuJoCo 3.15.0's words for its sensors' reftype/refname rule
        assert_eq!(
            together.message(),
            "Schema violation: attributes 'reftype', 'refname' must be specified together"
        );
        let one_of = &PRESENCE[8];
        assert_eq!(
            one_of.message(),
            "Schema violation: one of ('site1', 'site2'), ('body1', 'anchor') must be specified"
        );
    }
}
