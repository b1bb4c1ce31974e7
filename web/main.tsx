import { render } from 'preact';
import { App } from './app.js';
import { installLinkInterception } from './router.js';
import './styles.css';

installLinkInterception();
render(<App />, document.getElementById('app')!);
