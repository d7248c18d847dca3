// A photo made small before it leaves the phone: a 12-megapixel picture is 3-5 MB, one the size of a large screen
// a few hundred KB, so the upload is quick on a mobile network and far under the server's limit. Drawing it anew
// also drops its EXIF (the place it was taken); the camera's orientation is applied first, so it stands the right way up.

import { fitSize, PHOTO_QUALITY, photoSide } from "./media.js";

// Resolves with {blob, width, height}; a picture this browser cannot decode (HEIC outside Safari) goes as it is,
// for the server to read and resize ({blob: file, width: 0, height: 0}).
export async function downscale(file, max = photoSide()) {
  let bitmap;
  try {
    bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
  } catch {
    return { blob: file, width: 0, height: 0 };
  }
  const { width, height } = fitSize(bitmap.width, bitmap.height, max);
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext("2d");
  context.fillStyle = "#fff";  // a transparent PNG on white, not on JPEG's black
  context.fillRect(0, 0, width, height);
  context.imageSmoothingQuality = "high";
  context.drawImage(bitmap, 0, 0, width, height);
  bitmap.close();
  const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", PHOTO_QUALITY));
  return blob ? { blob, width, height } : { blob: file, width: 0, height: 0 };
}
