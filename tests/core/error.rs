//! Errors as people read them.

use forcebench::Error;

// Broke: a missing file showed the system's words, `io: packets/ana.json: No such file or
// directory (os error 2)`.
#[test]
fn file_errors_are_said_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("packets").join("ana.returned.json");
    let err = forcebench::packets::read(&missing).unwrap_err();
    assert_eq!(err.code(), "io");
    assert_eq!(err.to_string(), format!("No file or folder at {}", missing.display()));
    let folder = Error::io(dir.path(), std::io::Error::from(std::io::ErrorKind::IsADirectory));
    assert_eq!(folder.to_string(), format!("{} is a folder, not a file", dir.path().display()));
    let denied = Error::io("/root/x", std::io::Error::from(std::io::ErrorKind::PermissionDenied));
    assert_eq!(denied.to_string(), "/root/x: permission denied (this user may not read or write it)");
}
