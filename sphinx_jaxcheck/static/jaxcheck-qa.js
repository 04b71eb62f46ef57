/* sphinx-jaxcheck: open the Q&A card a link points to.
 * A closed <details> hides its content, so a permalink, an index link or a
 * :ref: to a card (or to something inside one) would land on a closed card.
 * Everything else about cards works without this script. */
(function () {
  "use strict";
  function openFor(hash) {
    var id = decodeURIComponent((hash || "").replace(/^#/, ""));
    var target = id && document.getElementById(id);
    if (!target) return;
    var opened = false;
    for (var node = target; node; node = node.parentElement) {
      if (node.matches && node.matches("details.jaxcheck-qa") && !node.open) {
        node.open = true;
        opened = true;
      }
    }
    if (opened || target.matches("details.jaxcheck-qa")) target.scrollIntoView();
  }
  window.addEventListener("hashchange", function () { openFor(location.hash); });
  // A link to the current hash fires no hashchange: open the card on the click itself.
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a[href*='#']");
    if (link && link.hash && link.pathname === location.pathname && link.hash === location.hash) {
      openFor(link.hash);
    }
  });
  openFor(location.hash);
})();
