//! Themes keyed by meaning: each [`Role`] gets a style,
//! read from TOML (`themes/*.toml`, embedded in the binary, or a file given
//! with `--theme PATH`). Colours use ratatui's names (`yellow`,
//! `light-red`, `dark-gray`), an index (`"42"`) or `#rrggbb`. `NO_COLOR`
//! (any non-empty value) selects `monochrome` unless a theme is named
//! explicitly (no-color.org: an explicit option wins).

use std::collections::BTreeMap;

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;

/// The embedded themes: (name, TOML text).
pub const BUILTIN: [(&str, &str); 4] = [
    ("default", include_str!("../../themes/default.toml")),
    ("light", include_str!("../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.toml"),
    ),
    ("monochrome", include_str!("../../themes/monochrome.toml")),
];

/// A meaning that gets a style.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// Ordinary text (the message, values).
    Text,
    /// The header: server name, titles of screens.
    Title,
    /// Frames and separators.
    Border,
    /// A field's label.
    Label,
    /// The focused field's marker and label.
    Focus,
    /// The required marker `*`.
    Required,
    /// Less important text: descriptions, "not set", counts.
    Muted,
    /// Format hints and bounds.
    Hint,
    /// Validation messages.
    Error,
    /// The secret warning and other warnings.
    Warning,
    /// A chosen option or a checked box.
    Selected,
    /// An input box.
    Input,
    /// The focused input box.
    InputFocus,
    /// A button.
    Button,
    /// The focused button.
    ButtonFocus,
    /// A one-line notice (why Submit was refused).
    Notice,
}

impl Role {
    /// Every role, in the order of the theme files.
    pub const ALL: [Role; 16] = [
        Role::Text,
        Role::Title,
        Role::Border,
        Role::Label,
        Role::Focus,
        Role::Required,
        Role::Muted,
        Role::Hint,
        Role::Error,
        Role::Warning,
        Role::Selected,
        Role::Input,
        Role::InputFocus,
        Role::Button,
        Role::ButtonFocus,
        Role::Notice,
    ];

    /// The key in a theme file (`text`, `input_focus`, ...).
    pub fn key(self) -> &'static str {
        match self {
            Role::Text => "text",
            Role::Title => "title",
            Role::Border => "border",
            Role::Label => "label",
            Role::Focus => "focus",
            Role::Required => "required",
            Role::Muted => "muted",
            Role::Hint => "hint",
            Role::Error => "error",
            Role::Warning => "warning",
            Role::Selected => "selected",
            Role::Input => "input",
            Role::InputFocus => "input_focus",
            Role::Button => "button",
            Role::ButtonFocus => "button_focus",
            Role::Notice => "notice",
        }
    }
}

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RoleSpec {
    fg: Option<String>,
    bg: Option<String>,
    #[serde(default)]
    bold: bool,
    #[serde(default)]
    dim: bool,
    #[serde(default)]
    italic: bool,
    #[serde(default)]
    underlined: bool,
    #[serde(default)]
    reversed: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    name: Option<String>,
    #[serde(default)]
    roles: BTreeMap<String, RoleSpec>,
}

/// A parsed theme: one style per role.
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    /// The theme's name.
    pub name: String,
    styles: BTreeMap<Role, Style>,
}

/// Why a theme could not be read or found.
#[derive(Debug, thiserror::Error)]
pub enum ThemeError {
    /// The TOML does not parse, or does not have the theme's shape.
    #[error("theme: {0}")]
    Toml(#[source] toml::de::Error),
    /// A role that the theme format does not have.
    #[error("theme: unknown role '{role}' (roles: {known})")]
    UnknownRole {
        /// The role as written.
        role: String,
        /// The known roles, comma separated.
        known: String,
    },
    /// A colour that does not parse.
    #[error("roles.{role}.{which}: '{value}' is not a colour (a name like \"light-red\", an index 0-255, or \"#rrggbb\")")]
    Colour {
        /// The role.
        role: String,
        /// `fg` or `bg`.
        which: &'static str,
        /// The colour as written.
        value: String,
    },
    /// The built-in default theme does not parse (a build defect).
    #[error("the default theme does not parse")]
    DefaultBroken,
    /// A theme file could not be read.
    #[error("cannot read theme {path}: {source}")]
    Read {
        /// The path as given.
        path: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A theme file that does not parse.
    #[error("{path}: {source}")]
    File {
        /// The path as given.
        path: String,
        /// What is wrong in it.
        #[source]
        source: Box<ThemeError>,
    },
    /// Neither a built-in name nor a file.
    #[error("unknown theme '{name}': not a file, and not one of {known}")]
    Unknown {
        /// The name as given.
        name: String,
        /// The built-in names, comma separated.
        known: String,
    },
}

fn color(s: &str, role: &str, which: &'static str) -> Result<Color, ThemeError> {
    s.parse::<Color>().map_err(|_| ThemeError::Colour {
        role: role.to_owned(),
        which,
        value: s.to_owned(),
    })
}

impl Theme {
    /// Parse a theme from TOML text. Roles left out fall back to the
    /// monochrome style.
    ///
    /// Errors: [`ThemeError`] naming the role and key (unknown role, unknown
    /// key, bad colour, TOML syntax).
    pub fn from_toml(text: &str) -> Result<Self, ThemeError> {
        let file: ThemeFile = toml::from_str(text).map_err(ThemeError::Toml)?;
        let mut styles = if file.name.as_deref() == Some("monochrome") {
            BTreeMap::new()
        } else {
            Theme::monochrome().styles
        };
        for (key, spec) in &file.roles {
            let Some(role) = Role::ALL.iter().copied().find(|r| r.key() == key) else {
                let known: Vec<&str> = Role::ALL.iter().map(|r| r.key()).collect();
                return Err(ThemeError::UnknownRole {
                    role: key.clone(),
                    known: known.join(", "),
                });
            };
            let mut st = Style::default();
            if let Some(fg) = &spec.fg {
                st = st.fg(color(fg, key, "fg")?);
            }
            if let Some(bg) = &spec.bg {
                st = st.bg(color(bg, key, "bg")?);
            }
            for (on, m) in [
                (spec.bold, Modifier::BOLD),
                (spec.dim, Modifier::DIM),
                (spec.italic, Modifier::ITALIC),
                (spec.underlined, Modifier::UNDERLINED),
                (spec.reversed, Modifier::REVERSED),
            ] {
                if on {
                    st = st.add_modifier(m);
                }
            }
            styles.insert(role, st);
        }
        Ok(Theme {
            name: file.name.unwrap_or_else(|| "custom".into()),
            styles,
        })
    }

    /// A built-in theme by name.
    pub fn builtin(name: &str) -> Option<Self> {
        let (_, text) = BUILTIN.iter().find(|(n, _)| *n == name)?;
        Theme::from_toml(text).ok()
    }

    /// The monochrome theme (no colours): `themes/monochrome.toml`, which
    /// sets only modifiers, read by [`Theme::from_toml`] (a `monochrome`
    /// file starts from no styles, so this does not recurse).
    pub fn monochrome() -> Self {
        Theme::from_toml(BUILTIN[3].1).unwrap_or_else(|_| Theme {
            name: "monochrome".into(),
            styles: BTreeMap::new(),
        })
    }

    /// Resolve `--theme NAME|PATH` and `NO_COLOR`: a built-in name, else a
    /// file path; with no `--theme`, `monochrome` when `no_color` (the
    /// `NO_COLOR` variable is set and non-empty), else `default`.
    ///
    /// Errors: the file cannot be read or parsed, or the name is unknown.
    pub fn resolve(arg: Option<&str>, no_color: bool) -> Result<Self, ThemeError> {
        match arg {
            None if no_color => Ok(Theme::monochrome()),
            None => Theme::builtin("default").ok_or(ThemeError::DefaultBroken),
            Some(a) => {
                if let Some(t) = Theme::builtin(a) {
                    return Ok(t);
                }
                let p = std::path::Path::new(a);
                if p.is_file() {
                    let text = std::fs::read_to_string(p).map_err(|source| ThemeError::Read {
                        path: a.to_owned(),
                        source,
                    })?;
                    return Theme::from_toml(&text).map_err(|e| ThemeError::File {
                        path: a.to_owned(),
                        source: Box::new(e),
                    });
                }
                let names: Vec<&str> = BUILTIN.iter().map(|(n, _)| *n).collect();
                Err(ThemeError::Unknown {
                    name: a.to_owned(),
                    known: names.join(", "),
                })
            }
        }
    }

    /// Resolve the theme like [`Theme::resolve`] with the `NO_COLOR`
    /// variable, and set crossterm's colour output to match: crossterm
    /// drops every colour by itself when `NO_COLOR` is set, so a theme named
    /// on the command line (which wins over `NO_COLOR`) turns colours back
    /// on; without `--theme`, `NO_COLOR` gives `monochrome`, whose focus is
    /// drawn with reverse, bold and underline (no colour needed).
    /// With no `--theme` and no `NO_COLOR`, the terminal's background is
    /// asked for ([`super::background::detect`]: OSC 11, then `COLORFGBG`)
    /// and `light` is chosen on a light one, `default` otherwise.
    pub fn resolve_for_terminal(arg: Option<&str>) -> Result<Self, ThemeError> {
        let no_color = Theme::no_color_env();
        if arg.is_none() && !no_color {
            if let Some(bg) = super::background::detect() {
                if let Some(t) = Theme::builtin(bg.theme_name()) {
                    return Ok(t);
                }
            }
        }
        let theme = Theme::resolve(arg, no_color)?;
        if arg.is_some() {
            crossterm::style::force_color_output(true);
        }
        Ok(theme)
    }

    /// Whether `NO_COLOR` asks for no colour (set and non-empty).
    pub fn no_color_env() -> bool {
        std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
    }

    /// The style of a role.
    pub fn style(&self, role: Role) -> Style {
        self.styles.get(&role).copied().unwrap_or_default()
    }

    /// Ordinary text.
    pub fn text(&self) -> Style {
        self.style(Role::Text)
    }
    /// Header and screen titles.
    pub fn title(&self) -> Style {
        self.style(Role::Title)
    }
    /// Frames and separators.
    pub fn border(&self) -> Style {
        self.style(Role::Border)
    }
    /// A field label, focused or not.
    pub fn label(&self, focused: bool) -> Style {
        if focused {
            self.style(Role::Focus)
        } else {
            self.style(Role::Label)
        }
    }
    /// The focus marker.
    pub fn focus(&self) -> Style {
        self.style(Role::Focus)
    }
    /// The required marker.
    pub fn required(&self) -> Style {
        self.style(Role::Required)
    }
    /// Less important text.
    pub fn muted(&self) -> Style {
        self.style(Role::Muted)
    }
    /// Format hints and bounds.
    pub fn hint(&self) -> Style {
        self.style(Role::Hint)
    }
    /// Validation messages.
    pub fn error(&self) -> Style {
        self.style(Role::Error)
    }
    /// Warnings (secrets).
    pub fn warning(&self) -> Style {
        self.style(Role::Warning)
    }
    /// Chosen options and checked boxes.
    pub fn selected(&self) -> Style {
        self.style(Role::Selected)
    }
    /// An input box, focused or not.
    pub fn input(&self, focused: bool) -> Style {
        if focused {
            self.style(Role::InputFocus)
        } else {
            self.style(Role::Input)
        }
    }
    /// A button, focused or not.
    pub fn button(&self, focused: bool) -> Style {
        if focused {
            self.style(Role::ButtonFocus)
        } else {
            self.style(Role::Button)
        }
    }
    /// A one-line notice.
    pub fn notice(&self) -> Style {
        self.style(Role::Notice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_parse_with_every_role() {
        for (name, text) in BUILTIN {
            let t = Theme::from_toml(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(t.name, name);
            let file: ThemeFile = toml::from_str(text).expect("toml");
            for r in Role::ALL {
                assert!(file.roles.contains_key(r.key()), "{name} lacks {}", r.key());
            }
        }
        let d = Theme::builtin("default").expect("default");
        assert_eq!(d.focus().fg, Some(Color::Yellow));
        assert_eq!(Theme::monochrome().focus().fg, None);
    }

    #[test]
    fn no_color_and_errors() {
        assert_eq!(Theme::resolve(None, true).expect("mono").name, "monochrome");
        assert_eq!(
            Theme::resolve(Some("light"), true).expect("light").name,
            "light"
        );
        let e = Theme::resolve(Some("nope"), false).unwrap_err();
        assert!(matches!(e, ThemeError::Unknown { .. }), "{e:?}");
        let e = Theme::from_toml("[roles]\nfocus = { fg = \"nocolour\" }").unwrap_err();
        assert!(matches!(e, ThemeError::Colour { which: "fg", .. }), "{e:?}");
        assert!(
            e.to_string().starts_with("roles.focus.fg: 'nocolour'"),
            "{e}"
        );
        let e = Theme::from_toml("[roles]\nfocsu = {}").unwrap_err();
        assert!(e.to_string().contains("unknown role 'focsu'"), "{e}");
    }

    /// The shell completions offer the built-in names.
    #[test]
    fn the_completions_offer_every_builtin_theme() {
        let names: Vec<&str> = BUILTIN.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, crate::cli::THEME_NAMES);
    }
}
