// Mounts the app into index.html's #app.
import { mount } from "svelte";
import App from "./App.svelte";
import "./app.css";
import "./views.css";

mount(App, { target: document.getElementById("app")! });
