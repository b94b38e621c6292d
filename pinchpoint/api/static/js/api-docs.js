// Starts the API documentation viewer the page names (data-viewer) on the OpenAPI document it
// names (data-openapi), from the bundles this service serves itself: no CDN, no inline script.
(function () {
  "use strict";
  var root = document.getElementById("api-docs");
  if (!root) {
    return;
  }
  var spec = root.getAttribute("data-openapi");
  if (root.getAttribute("data-viewer") === "swagger") {
    window.SwaggerUIBundle({
      url: spec,
      dom_id: "#api-docs",
      layout: "BaseLayout",
      deepLinking: true,
      showExtensions: true,
      showCommonExtensions: true,
      validatorUrl: null, // the badge would ask validator.swagger.io about this document
      presets: [window.SwaggerUIBundle.presets.apis, window.SwaggerUIBundle.SwaggerUIStandalonePreset],
    });
  } else {
    window.Redoc.init(spec, { hideDownloadButton: false }, root);
  }
})();
