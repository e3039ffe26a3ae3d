//! The UI's side of a compiler worker: one request in flight at a time, and
//! only the newest waiting request of each kind kept (older ones are
//! dropped, since a newer edit supersedes them; a code-view request never
//! displaces a pending compile, and compiles go first). The worker says
//! `Ready` once its wasm has started; requests wait until then.
//!
//! A channel starts on the core worker (no code generators: a smaller
//! download). When that answers `NeedsBackends`, the channel replaces it
//! with the full worker and sends the same request there; it stays on the
//! full worker from then on (see `web_ui::worker_host`).
//!
//! A worker keeps the last script it compiled as its live session, named by
//! a revision; other requests name the revision only. When a worker does
//! not hold it (it was started since, or it only runs), it answers
//! `NeedsSource`; the channel then opens that revision there with the
//! source it knows ([`Channel::know_source`]) and asks again.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker};

use web_ui::protocol::{Request, Response};

/// The core worker's loader (trunk's shim for the `core-worker` binary).
const CORE_WORKER: &str = "./core-worker_loader.js";
/// The full worker's loader (the `worker` binary).
const FULL_WORKER: &str = "./worker_loader.js";

/// Whether a request of `req`'s kind waits in `pending` (it supersedes `req`).
fn has_newer(pending: &[Request], req: &Request) -> bool {
    pending
        .iter()
        .any(|r| std::mem::discriminant(r) == std::mem::discriminant(req))
}

pub struct Channel {
    worker: RefCell<Option<Worker>>,
    /// The running worker has the code generators.
    full: Cell<bool>,
    busy: Cell<bool>,
    pending: RefCell<Vec<Request>>,
    /// The request the worker is answering (sent again if it hands it over).
    in_flight: RefCell<Option<Request>>,
    on_response: Rc<dyn Fn(Response)>,
    on_crash: Rc<dyn Fn(String)>,
    next_id: Cell<u64>,
    /// The newest revision of the script and its text.
    latest: RefCell<Option<(u64, String)>>,
}

impl Channel {
    pub fn new(
        on_response: impl Fn(Response) + 'static,
        on_crash: impl Fn(String) + 'static,
    ) -> Rc<Channel> {
        Channel::starting_on(false, Rc::new(on_response), Rc::new(on_crash))
    }

    /// A channel on the full worker from the start, for requests that
    /// always need the code generators (a tuning): no detour through the
    /// core worker.
    pub fn on_full_worker(
        on_response: impl Fn(Response) + 'static,
        on_crash: impl Fn(String) + 'static,
    ) -> Rc<Channel> {
        Channel::starting_on(true, Rc::new(on_response), Rc::new(on_crash))
    }

    fn starting_on(
        full: bool,
        on_response: Rc<dyn Fn(Response)>,
        on_crash: Rc<dyn Fn(String)>,
    ) -> Rc<Channel> {
        let ch = Rc::new(Channel {
            worker: RefCell::new(None),
            full: Cell::new(full),
            busy: Cell::new(true),
            pending: RefCell::new(Vec::new()),
            in_flight: RefCell::new(None),
            on_response,
            on_crash,
            next_id: Cell::new(1),
            latest: RefCell::new(None),
        });
        Channel::start(&ch);
        ch
    }

    fn start(this: &Rc<Channel>) {
        this.busy.set(true);
        this.in_flight.borrow_mut().take();
        let script = if this.full.get() {
            FULL_WORKER
        } else {
            CORE_WORKER
        };
        let worker = match Worker::new(script) {
            Ok(w) => w,
            Err(e) => {
                (this.on_crash)(format!("could not start the compiler worker: {e:?}"));
                return;
            }
        };
        let weak = Rc::downgrade(this);
        let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
            let Some(ch) = weak.upgrade() else { return };
            let Some(text) = ev.data().as_string() else {
                return;
            };
            let Ok(resp) = serde_json::from_str::<Response>(&text) else {
                return;
            };
            ch.busy.set(false);
            match resp {
                Response::Ready | Response::Opened { .. } => {}
                Response::NeedsSource { id } => ch.reopen(id),
                Response::NeedsBackends { id } => {
                    ch.move_to_full_worker(id);
                    return;
                }
                resp => {
                    ch.in_flight.borrow_mut().take();
                    (ch.on_response)(resp);
                }
            }
            ch.flush();
        });
        worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        onmessage.forget();
        let weak = Rc::downgrade(this);
        let onerror =
            Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |ev: web_sys::ErrorEvent| {
                ev.prevent_default();
                let Some(ch) = weak.upgrade() else { return };
                (ch.on_crash)(format!(
                    "the compiler worker stopped ({}); restarting it",
                    ev.message()
                ));
                // `on_crash` may have closed the channel.
                let Some(w) = ch.worker.borrow_mut().take() else {
                    return;
                };
                w.terminate();
                Channel::start(&ch);
            });
        worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
        onerror.forget();
        *this.worker.borrow_mut() = Some(worker);
    }

    /// The core worker cannot answer request `id` (it needs a backend):
    /// starts the full worker and queues the request for it, unless a newer
    /// one of its kind is already waiting.
    fn move_to_full_worker(self: &Rc<Self>, id: u64) {
        if let Some(req) = self.in_flight.borrow_mut().take() {
            let mut p = self.pending.borrow_mut();
            if req.id() == id && !has_newer(&p, &req) {
                p.insert(0, req);
            }
        }
        if let Some(w) = self.worker.borrow_mut().take() {
            w.terminate();
        }
        self.full.set(true);
        web_sys::console::info_1(
            &"loading the code generators (the first use of a backend)".into(),
        );
        Channel::start(self);
    }

    /// The worker lacks the live session request `id` names: queues an
    /// `Open` of that revision and the request again, or drops the request
    /// when a newer edit superseded its revision.
    fn reopen(&self, id: u64) {
        let Some(req) = self.in_flight.borrow_mut().take() else {
            return;
        };
        if req.id() != id {
            return;
        }
        let latest = self.latest.borrow().clone();
        let (Some(revision), Some((newest, source))) = (req.revision(), latest) else {
            return;
        };
        if revision != newest {
            return;
        }
        let open = Request::Open {
            id: self.fresh_id(),
            revision,
            source,
        };
        let mut p = self.pending.borrow_mut();
        if !has_newer(&p, &req) {
            p.insert(0, req);
        }
        p.insert(0, open);
    }

    /// Records the text of `revision`, the newest, for `Open`s this
    /// channel may need to send (a Compile records its own).
    pub fn know_source(&self, revision: u64, source: &str) {
        let mut latest = self.latest.borrow_mut();
        if latest.as_ref().is_none_or(|(r, _)| *r != revision) {
            *latest = Some((revision, source.to_string()));
        }
    }

    /// Stops whatever the worker is doing (a long run) and starts a fresh one.
    pub fn restart(this: &Rc<Channel>) {
        if let Some(w) = this.worker.borrow_mut().take() {
            w.terminate();
        }
        this.pending.borrow_mut().clear();
        Channel::start(this);
    }

    /// Ends the worker for good (a stopped tuning).
    pub fn close(&self) {
        if let Some(w) = self.worker.borrow_mut().take() {
            w.terminate();
        }
        self.pending.borrow_mut().clear();
    }

    pub fn fresh_id(&self) -> u64 {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        id
    }

    /// Sends now if idle, else replaces the waiting request of its kind.
    pub fn send(&self, req: Request) {
        if let Request::Compile {
            revision, source, ..
        } = &req
        {
            self.know_source(*revision, source);
        }
        {
            let mut p = self.pending.borrow_mut();
            p.retain(|r| std::mem::discriminant(r) != std::mem::discriminant(&req));
            p.push(req);
        }
        if !self.busy.get() {
            self.flush();
        }
    }

    fn flush(&self) {
        let req = {
            let mut p = self.pending.borrow_mut();
            let rank = |r: &Request| match r {
                Request::Open { .. } | Request::Compile { .. } => 0,
                Request::Run { .. } | Request::Check { .. } => 1,
                Request::Regions { .. }
                | Request::MemoryAccess { .. }
                | Request::Panel { .. }
                | Request::ProgressFile { .. } => 2,
                Request::Code { .. } | Request::Tune { .. } => 3,
            };
            let Some(i) = (0..p.len()).min_by_key(|&i| rank(&p[i])) else {
                return;
            };
            p.remove(i)
        };
        let Ok(text) = serde_json::to_string(&req) else {
            return;
        };
        if let Some(w) = self.worker.borrow().as_ref() {
            if w.post_message(&JsValue::from_str(&text)).is_ok() {
                self.busy.set(true);
                *self.in_flight.borrow_mut() = Some(req);
            }
        }
    }
}
