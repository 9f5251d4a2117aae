// Placeholder until the live home lands: the shell mounts it at #/home.
export function mount(el, ctx) {
  const h = document.createElement('h1');
  h.textContent = ctx.t('home.title');
  el.append(h);
}
