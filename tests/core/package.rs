//! The Debian package's manifest (src-tauri/Cargo.toml, [package.metadata.deb]) and desktop
//! entry, checked on every test run; scripts/test-package.sh builds and installs the package
//! itself, which takes a release build.

fn read(rel: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

#[test]
fn the_package_installs_both_commands_the_menu_entry_the_icon_the_guideline_and_the_sample() {
    let manifest = read("src-tauri/Cargo.toml");
    let deb = manifest.split("[package.metadata.deb]").nth(1).expect("a [package.metadata.deb] section");
    for (source, target) in [
        ("target/release/forcebench-studio", "usr/bin/"),
        ("target/release/forcebench", "usr/bin/"),
        ("../packaging/forcebench-studio.desktop", "usr/share/applications/"),
        ("icons/icon.png", "usr/share/icons/hicolor/512x512/apps/forcebench-studio.png"),
        ("../docs/guideline.md", "usr/share/doc/forcebench-studio/guideline.md"),
        ("../sample-data/candidates.csv", "usr/share/forcebench-studio/sample-data/candidates.csv"),
    ] {
        assert!(deb.contains(&format!("[\"{source}\", \"{target}\"")), "the package lacks {source} -> {target}");
        if !source.starts_with("target/") {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src-tauri").join(source);
            assert!(path.is_file(), "{} is listed but missing", path.display());
        }
    }
    // dpkg-shlibdeps names WebKitGTK and the rest, so `apt install ./x.deb` pulls them.
    assert!(deb.contains("depends = \"$auto\""));
    // The RPM installs the same files (scripts/test-package.sh compares the two built packages).
    let rpm =
        manifest.split("[package.metadata.generate-rpm]").nth(1).expect("a [package.metadata.generate-rpm] section");
    for dest in
        ["/usr/bin/forcebench-studio", "/usr/bin/forcebench", "/usr/share/applications/forcebench-studio.desktop"]
    {
        assert!(rpm.contains(&format!("dest = \"{dest}\"")), "the RPM lacks {dest}");
    }
    assert!(rpm.contains("\"webkit2gtk4.1\""), "the RPM requires Fedora's WebKitGTK 4.1");
}

#[test]
fn the_desktop_entry_starts_the_installed_app_with_its_icon() {
    let entry = read("packaging/forcebench-studio.desktop");
    let field = |key: &str| {
        entry.lines().find_map(|l| l.strip_prefix(&format!("{key}="))).unwrap_or_else(|| panic!("no {key}= line"))
    };
    assert_eq!(entry.lines().next(), Some("[Desktop Entry]"));
    assert_eq!(field("Type"), "Application");
    assert_eq!(field("Name"), "ForceBench Studio");
    assert_eq!(field("Exec").split(' ').next(), Some("forcebench-studio"), "the binary the package puts in /usr/bin");
    assert_eq!(field("Icon"), "forcebench-studio", "the icon's name in hicolor");
    assert!(field("Categories").ends_with(';'));
    assert!(
        read("src-tauri/Cargo.toml").contains("name = \"forcebench-studio\"\npath = \"src/main.rs\""),
        "the app binary's name"
    );
}
