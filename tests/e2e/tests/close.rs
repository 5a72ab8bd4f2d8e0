//! Closing the real window (WebKitGTK through tauri-driver) a moment after typing: the window is
//! asked to close as its close button asks (a WM_DELETE_WINDOW message from the X server, sent to
//! the app's top-level window), and the note typed just before is in the project file afterwards.

use std::ffi::{CStr, CString};
use std::time::{Duration, Instant};

use fantoccini::key::Key;
use fantoccini::Client;
use forcebench::{annotate, sample, Project};
use forcebench_e2e::client::{css, k, keys, run, session, wait_js, Res, ROW_ID};
use forcebench_e2e::{find_tools, start_for};
use serde_json::json;
use x11_dl::xlib;

const WHO: &str = "Ana";
const NOTE: &str = "Check the year against the passage";

/// The windows titled `title` on `display`; with `close`, each is sent WM_DELETE_WINDOW, as a
/// window manager does when its close button is pressed.
fn windows_titled(display: &str, title: &str, close: bool) -> Result<usize, String> {
    let x = xlib::Xlib::open().map_err(|e| format!("cannot load libX11: {e}"))?;
    let name = CString::new(display).unwrap();
    // SAFETY: plain Xlib calls on a display this function opens and closes; every pointer Xlib
    // hands back is freed with XFree once read.
    unsafe {
        let d = (x.XOpenDisplay)(name.as_ptr());
        if d.is_null() {
            return Err(format!("cannot open display {display}"));
        }
        let protocols = (x.XInternAtom)(d, c"WM_PROTOCOLS".as_ptr(), 0);
        let delete = (x.XInternAtom)(d, c"WM_DELETE_WINDOW".as_ptr(), 0);
        let mut stack = vec![(x.XDefaultRootWindow)(d)];
        let mut asked = 0;
        while let Some(w) = stack.pop() {
            let mut text: *mut std::os::raw::c_char = std::ptr::null_mut();
            if (x.XFetchName)(d, w, &mut text) != 0 && !text.is_null() {
                let found = CStr::from_ptr(text).to_string_lossy() == title;
                (x.XFree)(text.cast());
                if found {
                    asked += 1;
                }
                if found && close {
                    let mut event: xlib::XEvent = std::mem::zeroed();
                    event.client_message.type_ = xlib::ClientMessage;
                    event.client_message.window = w;
                    event.client_message.message_type = protocols;
                    event.client_message.format = 32;
                    event.client_message.data.set_long(0, delete as std::os::raw::c_long);
                    event.client_message.data.set_long(1, xlib::CurrentTime as std::os::raw::c_long);
                    (x.XSendEvent)(d, w, 0, xlib::NoEventMask, &mut event);
                }
            }
            let (mut root, mut parent, mut children, mut n) = (0, 0, std::ptr::null_mut(), 0);
            if (x.XQueryTree)(d, w, &mut root, &mut parent, &mut children, &mut n) != 0 && !children.is_null() {
                stack.extend_from_slice(std::slice::from_raw_parts(children, n as usize));
                (x.XFree)(children.cast());
            }
        }
        (x.XFlush)(d);
        (x.XCloseDisplay)(d);
        Ok(asked)
    }
}

/// To the first row of Ana's queue, `o`, the note typed; returns once the last key is sent.
async fn type_a_note(client: Client, first: String) -> Res {
    client.wait().at_most(Duration::from_secs(30)).for_element(css("[data-testid=nav-annotate]")).await?;
    keys(&client, &format!("{}2", k(Key::Alt))).await?;
    client.wait().at_most(Duration::from_secs(10)).for_element(css("[data-testid=pick-annotator]")).await?;
    wait_js(&client, "document.activeElement?.dataset?.name ?? null", json!(WHO)).await?;
    keys(&client, &k(Key::Enter)).await?;
    wait_js(&client, ROW_ID, json!(first)).await?;
    keys(&client, "o").await?;
    wait_js(&client, "document.activeElement?.dataset?.testid ?? null", json!("notes")).await?;
    keys(&client, NOTE).await
}

// Broke: `o`, a note typed, the window closed within the 700 ms pause: the note was never saved.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_the_window_right_after_typing_keeps_the_note() {
    let tools = find_tools().unwrap_or_else(|message| panic!("{message}"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("close.forcebench");
    let first = {
        let mut project = Project::create(&path, "E2E close").expect("create the project");
        sample::load_sample_project(&mut project).expect("load the sample project");
        annotate::queue(&project, WHO).unwrap().remove(0).id
    };
    let (display, driver) = start_for(&tools, &path, dir.path());
    let client = session(&tools, &driver).await;
    let (typed, id) = (client.clone(), first.clone());
    let display_name = display.name.clone();
    run(client, async move {
        type_a_note(typed, id).await?;
        // At once, well inside the pause after which typed text is saved.
        let asked = windows_titled(&display_name, "ForceBench Studio", true)?;
        assert!(asked >= 1, "no window titled ForceBench Studio on {display_name}");
        // The session stays until the window has gone by itself (ending it would stop the app).
        let deadline = Instant::now() + Duration::from_secs(15);
        while windows_titled(&display_name, "ForceBench Studio", false)? > 0 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Ok(())
    })
    .await;
    // The app saves the note before its window goes; the file says so.
    let deadline = Instant::now() + Duration::from_secs(15);
    let saved = loop {
        let notes = annotate::get(&Project::open(&path).unwrap(), &first, WHO).unwrap().notes;
        if notes.is_some() || Instant::now() > deadline {
            break notes;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(saved.as_deref(), Some(NOTE), "the note typed just before the window closed");
    // And the window did close (its close request is the app's to finish, after saving).
    let deadline = Instant::now() + Duration::from_secs(15);
    while windows_titled(&display.name, "ForceBench Studio", false).unwrap() > 0 {
        assert!(Instant::now() < deadline, "the window is still open 15 s after it was asked to close");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    drop(driver);
    drop(display);
}
