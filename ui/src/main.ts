// Mounts the app into index.html's #app.
import { mount } from "svelte";
// Before the components, so their own scoped rules win over the shared forms (forms.css).
import "./forms.css";
import App from "./App.svelte";
import "./app.css";
import "./views.css";

mount(App, { target: document.getElementById("app")! });
